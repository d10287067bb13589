/** Redis side of seeding: the seed marker and `seed --reset`, on one node or every primary of a cluster. */
import type { Logger } from 'pino';
import { SessionsLostError, StoreUnavailableError } from '../errors/store-errors.js';
import type { SessionStore } from './session-store.js';
import { parseMarker, type SeedMarker } from './seed-on-start.js';
import { isCluster, type RedisConnection } from '../redis/create-redis-connection.js';

/** The marker key: `<prefix>seed-version` (one string; any slot). */
export function seedMarkerKey(keyPrefix: string): string {
  return `${keyPrefix}seed-version`;
}

/**
 * A `SeedMarker` in Redis; failures throw `StoreUnavailableError`.
 * @example await seedStore({ store, source, marker: createRedisSeedMarker(redis, 'session-resume:') });
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

const LOST =
  'Redis has lost the sessions (the seed marker or its sample session is missing): every resume would be 404. ' +
  'Reseed with `session-resume-api-server seed`, or restart the server, which seeds at start.';

/**
 * Wraps a seeded store so `ping` (and `/healthz`) also checks the seeded sessions are still there:
 * while the marker or its sample is missing it throws `SessionsLostError` (503), logged once on loss
 * and once on recovery. Call `ping` after the first seeding only.
 * @example const store = watchSeededSessions(createRedisSessionStore({ client }), { marker: createRedisSeedMarker(client, prefix), logger });
 */
export function watchSeededSessions(store: SessionStore, options: { marker: SeedMarker; logger?: Pick<Logger, 'error' | 'info'> }): SessionStore {
  const { marker, logger } = options;
  let lost = false;
  const seeded = async () => {
    const recorded = parseMarker(await marker.read());
    return recorded !== undefined && (recorded.sample === undefined || (await store.get(recorded.sample)) !== undefined);
  };
  return {
    resume: (id, resumeOptions) => store.resume(id, resumeOptions),
    get: (id) => store.get(id),
    seed: (seeds) => store.seed(seeds),
    async ping() {
      await store.ping();
      const ok = await seeded();
      if (ok === !lost) {
        if (!ok) throw new SessionsLostError(LOST);
        return;
      }
      lost = !ok;
      if (lost) {
        logger?.error({ reason: 'seed marker missing' }, `data loss: ${LOST}`);
        throw new SessionsLostError(LOST);
      }
      logger?.info('sessions reseeded: the seed marker and its sample session are back');
    },
  };
}

/**
 * Deletes every session hash under `keyPrefix` and the seed marker on every primary (idempotency
 * records and events stay); resolves with the number deleted.
 * @example const deleted = await resetRedisSessions(redis, 'session-resume:');
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

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
