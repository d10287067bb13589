/** Seeding at start and by the `seed` command; on a shared store a marker skips content already seeded, so restarts stay fast. */
import type { SeedSource } from './session-seeds.js';
import type { SessionStore } from './session-store.js';

/** Remembers which seed content a shared store already holds (Redis: one key). */
export interface SeedMarker {
  read(): Promise<string | undefined>;
  write(value: string): Promise<void>;
}

/** What seeding did: `skipped` when the marker showed this exact content was already seeded. */
export interface SeedResult {
  skipped: boolean;
  /** Sessions created now. */
  created: number;
  /** Sessions of the source that already existed (and were left as they are). */
  kept: number;
}

/** Options of `seedStore`. */
export interface SeedStoreOptions {
  store: SessionStore;
  source: SeedSource;
  /**
   * Where the seed version is kept, so a store that keeps its sessions is seeded once per seed set.
   * @defaultValue none: seeds at every start (a store that starts empty every time, memory)
   */
  marker?: SeedMarker;
  /**
   * Seed even when the marker matches (the `seed` command).
   * @defaultValue `false`
   */
  force?: boolean;
}

/**
 * Seeds `store` from `source`. A marker with the same version whose sample session exists skips
 * the work; Redis that lost its data has no marker. Existing sessions are never overwritten.
 * @example const result = await seedStore({ store, source: await openSeedSource(file), marker: createRedisSeedMarker(redis, prefix) });
 */
export async function seedStore(options: SeedStoreOptions): Promise<SeedResult> {
  const { store, source, marker } = options;
  if (marker && !options.force) {
    const recorded = parseMarker(await marker.read());
    // The sample guards against a marker that outlived its sessions (keys renamed or deleted).
    if (recorded?.version === source.version && (recorded.sample === undefined || (await store.get(recorded.sample)))) {
      return { skipped: true, created: 0, kept: 0 };
    }
  }
  const seeds = await source.load();
  const { created } = await store.seed(seeds);
  await marker?.write(JSON.stringify({ version: source.version, sample: seeds[0]?.id }));
  return { skipped: false, created, kept: seeds.length - created };
}

/** The content of a seed marker: the seeded version and one sample session id; undefined when unreadable. */
export function parseMarker(text: string | undefined): { version: string; sample?: string } | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as { version?: unknown; sample?: unknown };
    if (typeof value.version !== 'string') return undefined;
    return { version: value.version, ...(typeof value.sample === 'string' ? { sample: value.sample } : {}) };
  } catch {
    return undefined;
  }
}
