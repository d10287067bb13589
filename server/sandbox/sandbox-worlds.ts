/** Sandbox worlds: sessions and an event feed per `sandbox_` key, seeded on first use, least recently used dropped beyond `maxWorlds`. */
import { checkInteger, OptionsError } from '@session-resume-api/runtime/options-error';
import { createHash } from 'node:crypto';
import { SANDBOX_KEY_PREFIX } from '@session-resume-api/runtime/sandbox-key';
import type { SandboxApiComponents as components, SandboxEvent } from '@session-resume-api/runtime/sandbox-types';
import { dedupeKey } from '@session-resume-api/runtime/event-identity';
import { DEFAULT_DELIVERY_PROFILE, type DeliveryProfile } from '@session-resume-api/runtime/delivery/delivery-rules';
import { createMemorySessionStore } from '../sessions/memory-session-store.js';
import type { WebhookMessage } from '../core/webhook-message.js';
import type { Session, SessionSeed, SessionStore } from '../sessions/session-store.js';

export type { SandboxEvent } from '@session-resume-api/runtime/sandbox-types';

/** Default number of worlds kept (x-decisions: sandbox-world-limit). */
export const DEFAULT_MAX_WORLDS = 1000;
/** Default number of events each world keeps. */
export const DEFAULT_MAX_EVENTS = 1000;
/** Default number of sessions one world holds, seeds included (x-decisions: sandbox-session-limit). */
export const DEFAULT_MAX_SESSIONS = 1000;
/** Sessions one page of `list` holds by default, and at most. */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/** What a recovery found and did (spec/sandbox.yaml `RecoverResult`). */
export type SandboxRecovery = components['schemas']['RecoverResult'];

/** One page of a world's sessions (spec/sandbox.yaml `SessionList`). */
export type SessionPage = components['schemas']['SessionList'];

/** Outcome of `set`: the session as it now is, or `full` when creating it would pass the limit. */
export type SetOutcome = { kind: 'set'; session: Session } | { kind: 'full'; limit: number };

/** One key's world: its sessions (a `SessionStore` plus set-up calls) and its event feed. */
export interface SandboxWorld extends SessionStore {
  /** One page of sessions sorted by id: at most `limit` (default 100) after the id `after`. */
  list(page?: { limit?: number; after?: string }): SessionPage;
  /** Creates the session or sets its status; `full` when the world already holds `maxSessions`. */
  set(id: string, status: string): SetOutcome;
  /** How `listen --forward-to` delivers this world's events (x-decisions in spec/sandbox.yaml: sandbox-delivery-profile). */
  deliveryProfile(): DeliveryProfile;
  /** Replaces the delivery profile (already read by `readDeliveryProfile`) and tells the profile listeners. */
  setDeliveryProfile(profile: DeliveryProfile): void;
  /** Calls `listener` with each new delivery profile until the returned function is called. */
  onDeliveryProfile(listener: (profile: DeliveryProfile) => void): () => void;
  /** Back to the seed set, feed cleared, default delivery profile (live subscribers stay connected). */
  reset(): void;
  /** Appends an event to the feed and tells the subscribers; returns the entry. */
  record(event: WebhookMessage): SandboxEvent;
  /** The kept events, oldest first, after sequence `after` (default 0: all). */
  events(after?: number): SandboxEvent[];
  /** Emits again, once, every kept event stamped in `[since, until)` (ms); with `dryRun` only lists them. */
  recover(window: { since: number; until: number; dryRun: boolean }): SandboxRecovery;
  /** Calls `listener` for each new event until the returned function is called. */
  subscribe(listener: (event: SandboxEvent) => void): () => void;
  /** Called once when the world is dropped (evicted); used to end live streams. */
  onDrop(listener: () => void): () => void;
}

/** Options of `createSandboxWorlds`. */
export interface SandboxWorldsOptions {
  /** Sessions every new or reset world starts with. */
  seeds: readonly SessionSeed[];
  /**
   * Worlds kept at once; the least recently used is dropped beyond it.
   * @defaultValue {@link DEFAULT_MAX_WORLDS} (1000)
   */
  maxWorlds?: number;
  /**
   * Events kept per world; older ones leave the feed.
   * @defaultValue {@link DEFAULT_MAX_EVENTS} (1000)
   */
  maxEvents?: number;
  /**
   * Sessions one world holds at most, seeds included (the server's `SANDBOX_MAX_SESSIONS`).
   * @defaultValue {@link DEFAULT_MAX_SESSIONS} (1000)
   */
  maxSessions?: number;
  /**
   * Clock for `updatedAt`.
   * @defaultValue `() => new Date()`
   */
  now?: () => Date;
}

/** The worlds of one sandbox. */
export interface SandboxWorlds {
  /** The world id of a `sandbox_` token (a short hash, safe to log), or undefined for any other token. */
  checkKey(token: string): string | undefined;
  /** The world of `worldId`, created and seeded on first use; marks it most recently used. */
  world(worldId: string): SandboxWorld;
  /** Number of worlds kept now. */
  size(): number;
}

/**
 * Creates the worlds. @example
 * const worlds = createSandboxWorlds({ seeds: DEMO_SESSIONS });
 * const id = worlds.checkKey('sandbox_alice'); // 'sandbox:3b1f…'
 * await worlds.world(id!).resume('sess_paused_1'); // { kind: 'resumed', … }
 */
export function createSandboxWorlds(options: SandboxWorldsOptions): SandboxWorlds {
  const maxWorlds = positive('maxWorlds', options.maxWorlds ?? DEFAULT_MAX_WORLDS);
  const maxEvents = positive('maxEvents', options.maxEvents ?? DEFAULT_MAX_EVENTS);
  const maxSessions = positive('maxSessions', options.maxSessions ?? DEFAULT_MAX_SESSIONS);
  if (!Array.isArray(options.seeds)) throw new OptionsError('createSandboxWorlds: seeds must be a list of { id, status }.', { option: 'seeds' });
  if (options.seeds.length > maxSessions) {
    throw new OptionsError(
      `createSandboxWorlds: the seed set has ${options.seeds.length} sessions, more than a world holds (maxSessions ${maxSessions}): raise the limit or seed fewer.`,
      { option: 'seeds' },
    );
  }
  const seeds = options.seeds.map(({ id, status }) => ({ id, status }));
  const now = options.now ?? (() => new Date());
  // A Map iterates in insertion order: re-inserting on use keeps the least recent first.
  const worlds = new Map<string, SandboxWorld & { drop(): void }>();
  return {
    checkKey: createKeyCheck(maxWorlds),
    world(worldId) {
      let world = worlds.get(worldId);
      if (world) worlds.delete(worldId);
      else {
        world = createWorld(seeds, { maxEvents, maxSessions }, now);
        const oldest = worlds.size >= maxWorlds ? worlds.keys().next().value : undefined;
        if (oldest !== undefined) {
          worlds.get(oldest)?.drop();
          worlds.delete(oldest);
        }
      }
      worlds.set(worldId, world);
      return world;
    },
    size: () => worlds.size,
  };
}

/** Keys of at most this many characters keep their world id between requests. */
const REMEMBERED_KEY_CHARS = 256;

/**
 * `checkKey`: the world id is a hash of the key, cached per key (hashing per request costs 2–3 % of
 * the resume path's CPU, bench/findings.md). At most `maxKeys` keys of up to 256 characters
 * (about 300 bytes each), oldest forgotten first.
 */
function createKeyCheck(maxKeys: number): (token: string) => string | undefined {
  const remembered = new Map<string, string>();
  return (token) => {
    if (!token.startsWith(SANDBOX_KEY_PREFIX) || token.length === SANDBOX_KEY_PREFIX.length) return undefined;
    let id = remembered.get(token);
    if (id !== undefined) return id;
    id = `sandbox:${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
    if (token.length <= REMEMBERED_KEY_CHARS) {
      if (remembered.size >= maxKeys) remembered.delete(remembered.keys().next().value as string);
      remembered.set(token, id);
    }
    return id;
  };
}

function positive(name: string, value: number): number {
  checkInteger(`createSandboxWorlds: ${name}`, value, { min: 1 });
  return value;
}

function createWorld(seeds: readonly SessionSeed[], limits: { maxEvents: number; maxSessions: number }, now: () => Date): SandboxWorld & { drop(): void } {
  const sessions = createWorldSessions(seeds, limits.maxSessions, now);
  const feed = createWorldFeed(limits.maxEvents);
  const profile = createProfileHolder();
  const dropListeners = new Set<() => void>();
  return {
    ...sessions.store,
    reset() {
      sessions.reset();
      feed.reset();
      profile.set(DEFAULT_DELIVERY_PROFILE);
    },
    deliveryProfile: profile.get,
    setDeliveryProfile: profile.set,
    onDeliveryProfile: profile.listen,
    record: feed.record,
    events: feed.events,
    recover: feed.recover,
    subscribe: feed.subscribe,
    onDrop(listener) {
      dropListeners.add(listener);
      return () => dropListeners.delete(listener);
    },
    drop() {
      for (const listener of dropListeners) listener();
      dropListeners.clear();
      feed.clear();
      profile.clear();
    },
  };
}

/** A world's sessions: the memory store over its own map, and the sandbox's set-up calls. */
function createWorldSessions(seeds: readonly SessionSeed[], maxSessions: number, now: () => Date) {
  const sessions = new Map<string, Session>();
  const seed = () => {
    sessions.clear();
    const at = now().toISOString();
    for (const { id, status } of seeds) sessions.set(id, { id, status, updatedAt: at });
  };
  seed();
  let store = createMemorySessionStore({ now, sessions });
  const world: SessionStore & Pick<SandboxWorld, 'list' | 'set'> = {
    // The memory store over this world's map: the same atomic resume, Idempotency-Keys included.
    resume: (id, resumeOptions) => store.resume(id, resumeOptions),
    get: (id) => store.get(id),
    seed: (more) => store.seed(more),
    ping: () => store.ping(),
    list: (page = {}) => listPage(sessions, page),
    set(id, status) {
      if (!sessions.has(id) && sessions.size >= maxSessions) return { kind: 'full', limit: maxSessions };
      const session = { id, status, updatedAt: now().toISOString() };
      sessions.set(id, session);
      return { kind: 'set', session: { ...session } };
    },
  };
  return {
    store: world,
    reset() {
      seed();
      // A fresh store: the world's Idempotency-Keys are forgotten with its sessions.
      store = createMemorySessionStore({ now, sessions });
    },
  };
}

/** A world's event feed: the last `maxEvents` events, numbered from 1, and its live subscribers. */
function createWorldFeed(maxEvents: number) {
  let feed: SandboxEvent[] = [];
  let sequence = 0;
  // Recovery: webhook-ids emitted again, and the sequences of those copies (never recovered themselves).
  const recovered = new Set<string>();
  const copies = new Set<number>();
  const listeners = new Set<(event: SandboxEvent) => void>();
  const record = (event: WebhookMessage): SandboxEvent => {
    sequence += 1;
    const entry: SandboxEvent = { sequence, webhookId: event.id, dedupeKey: dedupeKey(event.payload), payload: structuredClone(event.payload) };
    feed.push(entry);
    if (feed.length > maxEvents) feed.splice(0, feed.length - maxEvents);
    // The recovery marks are bounded like the feed.
    for (const copy of copies) if (copy < (feed[0]?.sequence ?? 0)) copies.delete(copy);
    while (recovered.size > maxEvents) recovered.delete(recovered.values().next().value as string);
    for (const listener of listeners) listener(entry);
    return entry;
  };
  return {
    record,
    events: (after = 0) => feed.filter((e) => e.sequence > after),
    recover({ since, until, dryRun }: { since: number; until: number; dryRun: boolean }): SandboxRecovery {
      const inWindow = feed.filter((e) => !copies.has(e.sequence) && Date.parse(e.payload.timestamp) >= since && Date.parse(e.payload.timestamp) < until);
      const events = inWindow.map((e) => {
        const requeued = !dryRun && !recovered.has(e.webhookId);
        if (requeued) {
          recovered.add(e.webhookId);
          copies.add(record({ id: e.webhookId, payload: e.payload as WebhookMessage['payload'] }).sequence);
        }
        return { webhookId: e.webhookId, timestamp: e.payload.timestamp, requeued };
      });
      return { dryRun, matched: events.length, requeued: events.filter((e) => e.requeued).length, events };
    },
    subscribe(listener: (event: SandboxEvent) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reset() {
      feed = [];
      sequence = 0;
      recovered.clear();
      copies.clear();
    },
    clear: () => listeners.clear(),
  };
}

/** A world's delivery profile: read as copies, and told to its listeners on every change. */
function createProfileHolder() {
  let profile: DeliveryProfile = { ...DEFAULT_DELIVERY_PROFILE };
  const listeners = new Set<(profile: DeliveryProfile) => void>();
  return {
    get: () => structuredClone(profile),
    set(next: DeliveryProfile) {
      profile = structuredClone(next);
      for (const listener of listeners) listener(structuredClone(profile));
    },
    listen(listener: (profile: DeliveryProfile) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    clear: () => listeners.clear(),
  };
}

/** One page of `sessions` sorted by id (code-unit order), after `after`, at most `limit`. */
function listPage(sessions: ReadonlyMap<string, Session>, { limit = DEFAULT_PAGE_SIZE, after }: { limit?: number; after?: string }): SessionPage {
  const ids = [...sessions.keys()].filter((id) => after === undefined || id > after).sort();
  const page = ids.slice(0, Math.min(limit, MAX_PAGE_SIZE));
  const list = page.map((id) => ({ ...(sessions.get(id) as Session) }));
  return ids.length > page.length ? { sessions: list, next: page[page.length - 1] as string } : { sessions: list };
}
