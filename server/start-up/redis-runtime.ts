/**
 * The Redis side of a process: the shared connection, Redis delivery, and the server's stores. Its
 * own module so a memory-store start never loads ioredis and BullMQ.
 */
import type { Logger } from 'pino';
import type { Store } from 'express-rate-limit';
import type { ServerConfig } from '../config.js';
import { createRedisRateLimitStore } from '../http/redis-rate-limit-store.js';
import { createQueueConnection, createRedisConnection, waitUntilConnected, type RedisConnection, type RedisTarget } from '../redis/create-redis-connection.js';
import { createConnectionErrorLog, type ConnectionErrorLog } from '../redis/connection-error-log.js';
import { withReplicaAcks } from '../redis/replica-acks.js';
import { createRedisSessionStore } from '../sessions/redis-session-store.js';
import type { SeedMarker } from '../sessions/seed-on-start.js';
import { createRedisSeedMarker, watchSeededSessions } from '../sessions/session-seed-admin.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { DeliveryObserver } from '../webhooks/delivery-types.js';
import { startRedisDelivery, type DeliveryRoles, type RedisDeliveryRuntime } from './redis-delivery-runtime.js';

/** A process's connection to Redis (one node or a cluster), ready. */
export interface RedisRuntime {
  redis: RedisConnection;
  errors: ConnectionErrorLog;
  /** Starts Redis delivery (durable) on its own BullMQ connection; `observer` gets every attempt (metrics). */
  startRedisDelivery(roles: DeliveryRoles, observer?: DeliveryObserver): Promise<RedisDeliveryRuntime>;
  /**
   * Says once when Redis is unreachable, then silences connection errors. True while unreachable:
   * an attempt under way cannot record its outcome, so the caller need not wait for it.
   */
  stopping(): boolean;
  /** Quits the shared connection (close Redis delivery first); drops it at once while Redis is unreachable. */
  close(): Promise<void>;
}

/** Options of `connectRedisRuntime`. */
export interface RedisRuntimeOptions {
  /**
   * Told about jobs the delivery engine's reads skip because they hold no event (the operator commands).
   * @defaultValue none: a warning for each
   */
  onMalformedJob?: (id: string, problem: string) => void;
}

/**
 * Connects and waits until Redis answers; a refused login fails at once (`RedisAuthError`).
 * @example const runtime = await connectRedisRuntime(config, redisTargetOf(config)!, logger);
 */
export async function connectRedisRuntime(config: ServerConfig, target: RedisTarget, logger: Logger, options: RedisRuntimeOptions = {}): Promise<RedisRuntime> {
  const errors = createConnectionErrorLog(logger, { setting: 'url' in target ? 'REDIS_URL' : 'REDIS_CLUSTER_NODES' });
  const redis = createRedisConnection(target, { onError: (err) => errors.report('store', err) });
  redis.on('ready', () => errors.recovered());
  try {
    await waitUntilConnected(redis);
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  // A connection lost under us (Redis restarting) starts an outage too: a reconnection that
  // succeeds at once emits no error, and the outage would go unlogged, its recovery too.
  redis.on('reconnecting', () => errors.report('store', new Error('the connection closed')));
  const down = () => errors.down || redis.status !== 'ready';
  return {
    redis,
    errors,
    startRedisDelivery: (roles, observer) =>
      startRedisDelivery({
        config,
        client: redis,
        connection: createQueueConnection(target),
        logger,
        roles,
        errors,
        ...(observer ? { observer } : {}),
        ...options,
      }),
    stopping() {
      const unreachable = down();
      if (unreachable) logger.warn('Redis is unreachable: stopping without it (events not yet delivered stay in Redis for the next instance)');
      errors.silence();
      return unreachable;
    },
    async close() {
      if (down()) redis.disconnect();
      // A QUIT that fails leaves the connection closed all the same: nothing is left to release.
      else await redis.quit().catch(() => undefined);
    },
  };
}

/** The server's Redis-backed stores. */
export interface RedisStores {
  store: SessionStore;
  rateLimitStore: Store;
  marker: SeedMarker;
}

/**
 * The session store, the rate-limit store and the seed marker over the shared connection.
 * @example const { store, marker } = openRedisStores(config, runtime.redis, logger);
 */
export function openRedisStores(config: ServerConfig, redis: RedisConnection, logger: Logger): RedisStores {
  const marker = createRedisSeedMarker(redis, config.redisKeyPrefix);
  const storeClient = config.redisWaitReplicas > 0 ? withReplicaAcks(redis, { replicas: config.redisWaitReplicas }) : redis;
  return {
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
  };
}
