/** Test helpers for suites on the shared Redis: unique key prefixes and their cleanup (never FLUSHALL). */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** A prefix no other test (or engineer on the shared Redis) uses; never contains ':'. */
export function uniquePrefix(label: string): string {
  return `test-${label}-${randomBytes(6).toString('hex')}`;
}

/** Deletes every key under `prefix` (SCAN + UNLINK; never FLUSHALL on a shared Redis). */
export async function deletePrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    // Also `{prefix}…`: stores that hash-tag their prefix for Redis Cluster.
    for (const pattern of [`${prefix}*`, `{${prefix}}*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        if (keys.length) await redis.unlink(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}
