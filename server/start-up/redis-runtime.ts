/**
 * The Redis side of `server/main.ts`: the shared connection, the session store, the rate-limit
 * store and the seed marker over it, and the outbox. A module of its own so that the entry
 * imports ioredis and BullMQ only when Redis is configured: a memory-store start (and the
 * sandbox) never loads them (start to first answer).
 */
import type { Logger } from 'pino';
import type { Store } from 'express-rate-limit';
import type { ServerConfig } from '../config.js';
import { startOutbox, type OutboxRuntime } from './outbox-runtime.js';
import type { DeliveryObserver } from '../webhooks/delivery-types.js';
import { createRedisRateLimitStore } from '../http/redis-rate-limit-store.js';
import { createRedisSessionStore } from '../sessions/redis-session-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { SeedMarker } from '../sessions/seed-on-start.js';
import { createQueueConnection, createRedisConnection, waitUntilConnected, type RedisConnection, type RedisTarget } from '../redis/create-redis-connection.js';
import { withReplicaAcks } from '../redis/replica-acks.js';
import { createRedisSeedMarker, watchSeededSessions } from '../sessions/session-seed-admin.js';

/** What the server runs on when Redis is configured. */
export interface RedisRuntime {
  redis: RedisConnection;
  store: SessionStore;
  rateLimitStore: Store;
  marker: SeedMarker;
  /** Starts the durable outbox (webhook configured): relay here, worker unless WEBHOOK_WORKER=0; `observer` gets every attempt (metrics). */
  startOutbox(observer?: DeliveryObserver): Promise<OutboxRuntime>;
}

/**
 * Connects (waiting until Redis answers) and builds the Redis-backed parts.
 * @example const { store, redis } = await openRedisRuntime(config, redisTargetOf(config)!, logger);
 */
export async function openRedisRuntime(config: ServerConfig, target: RedisTarget, logger: Logger): Promise<RedisRuntime> {
  const redis = createRedisConnection(target, {
    onError: (err) => logger.warn({ err: err.message }, 'Redis connection error'),
  });
  await waitUntilConnected(redis);
  const marker = createRedisSeedMarker(redis, config.redisKeyPrefix);
  // REDIS_WAIT_REPLICAS: the store's scripts wait for replicas (server/redis/replica-acks.ts).
  const storeClient = config.redisWaitReplicas > 0 ? withReplicaAcks(redis, { replicas: config.redisWaitReplicas }) : redis;
  return {
    redis,
    // Events are written only when something will deliver them (x-decisions: webhook-outbox).
    // /healthz answers 503 while Redis has lost the seeded sessions (x-decisions: idempotency-key).
    store: watchSeededSessions(
      createRedisSessionStore({
        client: storeClient,
        keyPrefix: config.redisKeyPrefix,
        events: Boolean(config.webhook),
        idempotencyTtlSeconds: config.idempotency.ttlSeconds,
      }),
      { marker, logger },
    ),
    rateLimitStore: createRedisRateLimitStore(redis, `${config.redisKeyPrefix}rate:`),
    marker,
    startOutbox(observer) {
      // BullMQ gets its own connection of the same kind (a Cluster on a cluster; its keys share the `{outbox}` tag).
      const queueConnection = createQueueConnection(target);
      const roles = { worker: config.webhook?.worker ?? true, relay: true };
      return startOutbox({ ...config, redisUrl: config.redisUrl ?? '' }, redis, logger, roles, queueConnection, observer);
    },
  };
}
