/**
 * The Idempotency-Keys of the memory store: each bound to the first session it was used with,
 * with that resume's answer, kept until it expires and at most `maxKeys` of them (the least
 * recently used dropped first).
 */

/** Kept per key: the session it is bound to, the answer as JSON text (a third of an object's size), and its expiry. */
export interface KeyRecord {
  sessionId: string;
  answer: string;
  /** ms since the epoch. */
  expiresAt: number;
}

/** The bounded key records of one memory store. */
export interface IdempotencyKeys {
  /** The record of a key that has not expired at `at` (ms); an expired one is dropped. */
  live(mapKey: string, at: number): KeyRecord | undefined;
  /** Keeps (or touches) a record as the most recently used, and drops what is over the cap or expired. */
  remember(mapKey: string, record: KeyRecord, at: number): void;
}

/** Creates the key records, at most `maxKeys` of them. */
export function createIdempotencyKeys(maxKeys: number): IdempotencyKeys {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const keys = new Map<string, KeyRecord>();
  return {
    live(mapKey, at) {
      const seen = keys.get(mapKey);
      if (seen && seen.expiresAt > at) return seen;
      if (seen) keys.delete(mapKey);
      return undefined;
    },
    remember(mapKey, record, at) {
      keys.delete(mapKey);
      keys.set(mapKey, record);
      // The least recently used go first: over the cap, or expired.
      for (const [oldest, { expiresAt }] of keys) {
        if (keys.size <= maxKeys && expiresAt > at) break;
        keys.delete(oldest);
      }
    },
  };
}
