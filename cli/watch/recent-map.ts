/**
 * A map that keeps its newest `limit` keys: the window of recent exchanges the cross-exchange
 * rules look back into (docs/bounds.md). Setting a key makes it the newest.
 */
export interface RecentMap<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  readonly size: number;
}

/** Creates a map of at most `limit` keys, dropping the least recently set. */
export function createRecentMap<V>(limit: number): RecentMap<V> {
  const entries = new Map<string, V>();
  return {
    get: (key) => entries.get(key),
    set(key, value) {
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > limit) entries.delete(entries.keys().next().value as string);
    },
    get size() {
      return entries.size;
    },
  };
}
