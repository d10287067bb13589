/** Builds the Redis clients and the outbox from the typed config, for the server, the worker and the CLI. */
import { readFile } from 'node:fs/promises';
import { Redis, type Cluster } from 'ioredis';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config.js';
import { createRedisClient } from '../redis/redis-client.js';
import { waitUntilConnected } from '../redis/create-redis-connection.js';
import { createRedisOutbox, type RedisOutbox } from '../webhooks/redis-outbox.js';
import type { DeliveryObserver } from '../webhooks/delivery-types.js';

/** The outbox with the BullMQ connection it runs on. */
export interface OutboxRuntime {
  outbox: RedisOutbox;
  /** Closes the outbox, then both clients. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/**
 * Creates the BullMQ connection (ioredis with `maxRetriesPerRequest: null`, as BullMQ
 * requires for workers) and the outbox over `client`. `roles` picks worker and relay.
 * @example const { outbox, close } = await startOutbox(config, redis, logger, { worker: true, relay: true });
 */
export async function startOutbox(
  config: ServerConfig & { redisUrl: string },
  client: Redis | Cluster,
  logger: Logger,
  roles: { worker: boolean; relay: boolean },
  /** BullMQ's connection (default: a new ioredis on REDIS_URL); a Cluster client works too. */
  bullConnection?: Redis | Cluster,
  /** Told about every attempt and delivery (the metrics); default none. */
  observer?: DeliveryObserver,
): Promise<OutboxRuntime> {
  const webhook = config.webhook;
  const connection = bullConnection ?? new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', (err) => logger.warn({ err: err.message }, 'Redis (outbox) connection error'));
  const ca = webhook?.caFile ? await readFile(webhook.caFile) : undefined;
  const outbox = createRedisOutbox({
    client,
    connection,
    keyPrefix: config.redisKeyPrefix,
    ...(webhook
      ? { url: webhook.url, allowPrivate: webhook.allowPrivate, secret: webhook.secret, schedule: webhook.schedule, concurrency: webhook.concurrency }
      : {}),
    ...(webhook?.insecureLocalhost ? { insecureLocalhost: true } : {}),
    ...(ca ? { ca } : {}),
    worker: roles.worker,
    relay: roles.relay,
    ...(observer ? { observer } : {}),
    logger: logger.child({ component: 'webhook-outbox' }),
  });
  return {
    outbox,
    async close(options) {
      await outbox.close(options);
      await connection.quit().catch(() => undefined);
    },
  };
}

/** The store client of a CLI command or worker: fail-fast, ready, quit by the caller. */
export async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const client = createRedisClient(url, { onError: (err) => logger.warn({ err: err.message }, 'Redis connection error') });
  await waitUntilConnected(client);
  return client;
}
