/** Builds the Redis clients and the outbox from the typed config, for the server, the worker and the CLI. */
import { readFile } from 'node:fs/promises';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config.js';
import { createRedisOutbox, type RedisOutbox } from '../webhooks/redis-outbox.js';
import type { DeliveryObserver } from '../webhooks/delivery-types.js';
import type { ConnectionErrorLog } from '../redis/connection-error-log.js';

/** The outbox with the BullMQ connection it runs on. */
export interface OutboxRuntime {
  outbox: RedisOutbox;
  /** Closes the outbox, then both clients. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/** Options of `startOutbox`. */
export interface StartOutboxOptions {
  config: ServerConfig;
  /** The store's client (fails fast). */
  client: Redis | Cluster;
  /** BullMQ's connection (`createQueueConnection`: `maxRetriesPerRequest: null`); closed with the outbox. */
  connection: Redis | Cluster;
  logger: Logger;
  /** Deliver from this process, and relay events no job took. */
  roles: { worker: boolean; relay: boolean };
  /** Told about every attempt and delivery (the metrics); default none. */
  observer?: DeliveryObserver;
  /** Where connection errors go (one line per outage); default: a log line each. */
  errors?: ConnectionErrorLog;
  /** Told about jobs the reads skip because they hold no event; default: a warning. */
  onMalformedJob?: (id: string, problem: string) => void;
}

/**
 * Creates the outbox over `client` and BullMQ's `connection`; `roles` picks worker and relay.
 * @example const { outbox, close } = await startOutbox({ config, client, connection, logger, roles: { worker: true, relay: true } });
 */
export async function startOutbox(options: StartOutboxOptions): Promise<OutboxRuntime> {
  const { config, connection, logger, errors } = options;
  const webhook = config.webhook;
  const onConnectionError = errors
    ? (source: string, err: Error) => errors.report(source, err)
    : (source: string, err: Error) => logger.warn({ err: err.message }, `${source} error`);
  connection.on('error', (err: Error) => onConnectionError('Redis (outbox) connection', err));
  const ca = webhook?.caFile ? await readFile(webhook.caFile) : undefined;
  const outbox = createRedisOutbox({
    client: options.client,
    connection,
    keyPrefix: config.redisKeyPrefix,
    ...(webhook
      ? { url: webhook.url, allowPrivate: webhook.allowPrivate, secret: webhook.secret, schedule: webhook.schedule, concurrency: webhook.concurrency }
      : {}),
    ...(webhook?.insecureLocalhost ? { insecureLocalhost: true } : {}),
    ...(ca ? { ca } : {}),
    worker: options.roles.worker,
    relay: options.roles.relay,
    ...(options.observer ? { observer: options.observer } : {}),
    onConnectionError,
    ...(options.onMalformedJob ? { onMalformedJob: options.onMalformedJob } : {}),
    logger: logger.child({ component: 'webhook-outbox' }),
  });
  return {
    outbox,
    async close(closeOptions) {
      await outbox.close(closeOptions);
      // BullMQ's connection queues commands while disconnected: QUIT would wait for Redis to come back.
      if (connection.status === 'ready') await connection.quit().catch(() => undefined);
      else connection.disconnect();
    },
  };
}
