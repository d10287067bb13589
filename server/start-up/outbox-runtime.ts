/** The durable outbox on Redis as the server, the worker and the CLI start it from the typed config. */
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import type { DeliveryObserver } from '../webhooks/delivery-types.js';
import type { ConnectionErrorLog } from '../redis/connection-error-log.js';
import { createRedisOutbox, type RedisOutbox } from '../webhooks/redis-outbox.js';

/** Which parts of the outbox a process runs: the relay hands written events to the queue, the worker delivers them. */
export interface OutboxRoles {
  worker: boolean;
  relay: boolean;
}

/** The outbox with the BullMQ connection it runs on. */
export interface OutboxRuntime {
  outbox: RedisOutbox;
  /** Closes the outbox, then its BullMQ connection. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/** Options of `startOutbox`. */
export interface StartOutboxOptions {
  config: ServerConfig;
  /** The shared connection the session store writes events with. */
  client: RedisConnection;
  /** BullMQ's connection (`createQueueConnection`); closed with the outbox. */
  connection: RedisConnection;
  logger: Logger;
  roles: OutboxRoles;
  /** Told about every attempt and delivery (the metrics); default none. */
  observer?: DeliveryObserver;
  /** Where connection errors go (one line per outage); default: a log line each. */
  errors?: ConnectionErrorLog;
  /** Told about jobs the reads skip because they hold no event; default: a warning. */
  onMalformedJob?: (id: string, problem: string) => void;
}

/**
 * Creates the outbox over `client` and `connection`, delivering as `config.webhook` says.
 * @example const { outbox, close } = await startOutbox({ config, client, connection, logger, roles: { worker: true, relay: true } });
 */
export async function startOutbox(options: StartOutboxOptions): Promise<OutboxRuntime> {
  const { config, connection, logger, roles, observer, errors } = options;
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
    worker: roles.worker,
    relay: roles.relay,
    ...(observer ? { observer } : {}),
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
