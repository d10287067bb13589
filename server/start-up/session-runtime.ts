/** The server's session store (Redis or memory) and its seed set. */
import type { Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config.js';
import { createMemorySessionStore } from '../sessions/memory-session-store.js';
import { seedStore } from '../sessions/seed-on-start.js';
import { DEMO_SESSIONS, openSeedSource, type SeedSource } from '../sessions/session-seeds.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { RedisRuntime } from './redis-runtime.js';

/** The seeded store, the rate limiter's store when it is shared (Redis), and the seed source (the sandbox's worlds start from it). */
export interface SessionRuntime {
  store: SessionStore;
  rateLimitStore?: Store;
  source: SeedSource;
}

/**
 * Opens the store and seeds it from SESSIONS_FILE (or the demo sessions), logging what it did.
 * @example const { store } = await openSessions(config, logger, redis);
 */
export async function openSessions(config: ServerConfig, logger: Logger, redis?: RedisRuntime): Promise<SessionRuntime> {
  const onRedis = redis ? (await import('./redis-runtime.js')).openRedisStores(config, redis.redis, logger) : undefined;
  const store =
    onRedis?.store ?? createMemorySessionStore({ idempotencyTtlSeconds: config.idempotency.ttlSeconds, idempotencyMaxKeys: config.idempotency.maxKeys });
  const source = await openSeedSource(config.sessionsFile);
  const seeding = await seedStore({ store, source, ...(onRedis ? { marker: onRedis.marker } : {}) });
  logger.info(
    {
      source: source.label,
      store: config.redisClusterNodes ? 'redis-cluster' : config.redisUrl ? 'redis' : 'memory',
      ...seeding,
      ...(config.sessionsFile ? {} : { sessions: DEMO_SESSIONS }),
    },
    seeding.skipped ? 'sessions already seeded from this source: nothing to do' : 'sessions seeded',
  );
  return { store, source, ...(onRedis ? { rateLimitStore: onRedis.rateLimitStore } : {}) };
}
