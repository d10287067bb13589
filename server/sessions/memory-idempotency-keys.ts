/** The memory store's Idempotency-Keys: each bound to its first session, at most `maxKeys`, least recently used dropped first. */

/** The answer is kept as JSON text: a third of an object's size. */
export interface KeyRecord {
  sessionId: string;
  answer: string;
  /** ms since the epoch. */
  expiresAt: number;
}

/** The bounded key records of one memory store. */
export interface IdempotencyKeys {
  live(mapKey: string, at: number): KeyRecord | undefined;
  remember(mapKey: string, record: KeyRecord, at: number): void;
}

/** Creates the key records. */
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
      for (const [oldest, { expiresAt }] of keys) {
        if (keys.size <= maxKeys && expiresAt > at) break;
        keys.delete(oldest);
      }
    },
  };
}
