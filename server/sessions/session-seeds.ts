/** Where the sessions of a fresh store come from: a JSON seed file (`SESSIONS_FILE`) or the demo set. */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DEMO_SESSIONS as SHARED_DEMO_SESSIONS } from '@session-resume-api/runtime/demo-sessions';
import type { SessionSeed } from './session-store.js';

/** The demo set loaded when no seed file is given: several paused sessions and one running. */
export const DEMO_SESSIONS: readonly SessionSeed[] = SHARED_DEMO_SESSIONS;

/** Thrown when a seed file cannot be used; the message names the file and what to fix. */
export class SeedFileError extends Error {
  override name = 'SeedFileError';
}

/** Checks parsed JSON as a seed list: `{ id, status }` non-empty strings, unique ids; extra members ignored. */
export function parseSessionSeeds(value: unknown, source: string): SessionSeed[] {
  if (!Array.isArray(value)) {
    throw new SeedFileError(`${source} must hold a JSON array of { "id": "...", "status": "paused" | "running" | ... }.`);
  }
  const seen = new Set<string>();
  return value.map((entry: unknown, index) => {
    const { id, status } = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    if (typeof id !== 'string' || id === '' || typeof status !== 'string' || status === '') {
      throw new SeedFileError(`${source}[${index}] must be an object with non-empty string "id" and "status".`);
    }
    if (seen.has(id)) throw new SeedFileError(`${source}[${index}]: session id "${id}" appears twice.`);
    seen.add(id);
    return { id, status };
  });
}

/**
 * A seed source before parsing: `version` is a SHA-256 of the bytes, so a restart can tell
 * "already seeded from exactly this" without parsing a large file.
 */
export interface SeedSource {
  /** `SESSIONS_FILE <path>` or `demo set`, for messages and logs. */
  label: string;
  version: string;
  /** Parses and checks the seeds; throws `SeedFileError`. */
  load(): Promise<SessionSeed[]>;
}

/**
 * Opens a seed file (the demo set when `path` is undefined) without parsing it; throws `SeedFileError` if unreadable.
 * @example
 * const source = await openSeedSource(process.env.SESSIONS_FILE);
 * const seeds = await source.load();
 */
export async function openSeedSource(path?: string): Promise<SeedSource> {
  if (path === undefined) {
    const text = JSON.stringify(DEMO_SESSIONS);
    return { label: 'demo set', version: sha256(text), load: async () => [...DEMO_SESSIONS] };
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (cause) {
    throw new SeedFileError(`SESSIONS_FILE ${path} cannot be read: ${(cause as Error).message}`, { cause });
  }
  const label = `SESSIONS_FILE ${path}`;
  return {
    label,
    version: sha256(bytes),
    async load() {
      let value: unknown;
      try {
        value = JSON.parse(bytes.toString('utf8'));
      } catch (cause) {
        throw new SeedFileError(`${label} is not valid JSON: ${(cause as Error).message}`, { cause });
      }
      return parseSessionSeeds(value, label);
    },
  };
}

/** Reads and checks a seed file; throws `SeedFileError` saying what is wrong. */
export async function loadSessionSeeds(path: string): Promise<SessionSeed[]> {
  return (await openSeedSource(path)).load();
}

function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}
