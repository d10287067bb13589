/**
 * Redis side of seeding: the seed marker key and the reset behind
 * `session-resume-api-server seed --reset`, on one node or on every primary of a cluster.
 */
import { StoreUnavailableError } from '../sessions/session-store.js';
import type { SeedMarker } from '../sessions/seed-on-start.js';
import { isCluster, type RedisConnection } from './create-redis-connection.js';

/** The marker key: `<prefix>seed-version` (one string; any slot). */
export function seedMarkerKey(keyPrefix: string): string {
  return `${keyPrefix}seed-version`;
}

/**
 * A `SeedMarker` in Redis; failures throw `StoreUnavailableError`.
 *
 * @example
 * await seedStore({ store, source, marker: createRedisSeedMarker(redis, 'session-resume:') });
 */
export function createRedisSeedMarker(client: RedisConnection, keyPrefix: string): SeedMarker {
  const key = seedMarkerKey(keyPrefix);
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (cause) {
      throw new StoreUnavailableError(`Redis seed marker failed: ${(cause as Error).message}`, { cause });
    }
  };
  return {
    read: () => guard(async () => (await client.get(key)) ?? undefined),
    write: (value) => guard(async () => void (await client.set(key, value))),
  };
}

/**
 * Deletes every session hash under `keyPrefix` (`<prefix>session:*`) and the seed marker, on
 * every primary; idempotency records and webhook events are left alone. Resolves with the
 * number of sessions deleted.
 *
 * @example
 * const deleted = await resetRedisSessions(redis, 'session-resume:');
 */
export async function resetRedisSessions(client: RedisConnection, keyPrefix: string): Promise<number> {
  const pattern = `${escapeGlob(keyPrefix)}session:*`;
  const nodes = isCluster(client) ? client.nodes('master') : [client];
  let deleted = 0;
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      // One key per UNLINK: on a cluster a multi-key UNLINK must stay in one slot.
      const counts = await Promise.all(keys.map((key) => client.unlink(key)));
      deleted += counts.reduce((sum, n) => sum + n, 0);
    } while (cursor !== '0');
  }
  await client.unlink(seedMarkerKey(keyPrefix));
  return deleted;
}

/** Escapes Redis glob characters so the prefix matches itself only. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
