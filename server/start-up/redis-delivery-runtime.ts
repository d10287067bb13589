/** Redis delivery (durable) as the server, the worker and the CLI start it from the typed config. */
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import type { DeliveryObserver } from '../webhooks/delivery-types.js';
import type { ConnectionErrorLog } from '../redis/connection-error-log.js';
import { endpointHealthSettings } from './endpoint-notice-runtime.js';
import { createRedisDelivery, type RedisDelivery } from '../webhooks/redis-delivery.js';
import { loadOpenTelemetry } from './opentelemetry-runtime.js';
import { OptionsError } from '@session-resume-api/runtime/options-error';

/** The outbox relay hands written events to the queue; the worker delivers them. */
export interface DeliveryRoles {
  worker: boolean;
  relay: boolean;
}

/** Redis delivery with the BullMQ connection it runs on. */
export interface RedisDeliveryRuntime {
  delivery: RedisDelivery;
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/** Options of `startRedisDelivery`. */
export interface StartRedisDeliveryOptions {
  config: ServerConfig;
  /** The shared connection the session store writes events with. */
  client: RedisConnection;
  /** BullMQ's connection (`createQueueConnection`); closed with the engine. */
  connection: RedisConnection;
  logger: Logger;
  roles: DeliveryRoles;
  /**
   * Told about every attempt and delivery (the metrics).
   * @defaultValue none: nobody is told
   */
  observer?: DeliveryObserver;
  /**
   * Where connection errors go (one line per outage).
   * @defaultValue none: a warning for each error
   */
  errors?: ConnectionErrorLog;
  /**
   * Told about jobs the reads skip because they hold no event.
   * @defaultValue none: a warning for each
   */
  onMalformedJob?: (id: string, problem: string) => void;
}

/**
 * Creates Redis delivery over `client` and `connection`, delivering as `config.webhook` says.
 * @example const { delivery, close } = await startRedisDelivery({ config, client, connection, logger, roles: { worker: true, relay: true } });
 */
export async function startRedisDelivery(options: StartRedisDeliveryOptions): Promise<RedisDeliveryRuntime> {
  const { config, connection, logger, roles, observer, errors } = options;
  const webhook = config.webhook;
  const onConnectionError = errors
    ? (source: string, err: Error) => errors.report(source, err)
    : (source: string, err: Error) => logger.warn({ err: err.message }, `${source} error`);
  connection.on('error', (err: Error) => onConnectionError('Redis (delivery queue) connection', err));
  const ca = webhook?.caFile ? await readFile(webhook.caFile) : undefined;
  const opentelemetry = await loadOpenTelemetry();
  const delivery = createRedisDelivery({
    client: options.client,
    connection,
    keyPrefix: config.redisKeyPrefix,
    ...(webhook
      ? {
          url: webhook.url,
          allowPrivate: webhook.allowPrivate,
          secret: webhook.secret,
          schedule: webhook.schedule,
          concurrency: webhook.concurrency,
          worker: roles.worker,
        }
      : { worker: workerWithoutUrl(roles.worker) }),
    ...(webhook?.insecureLocalhost ? { insecureLocalhost: true } : {}),
    ...(ca ? { ca } : {}),
    ...endpointHealthSettings(webhook, ca, logger),
    relay: roles.relay,
    ...(observer ? { observer } : {}),
    ...(opentelemetry ? { opentelemetry } : {}),
    onConnectionError,
    ...(options.onMalformedJob ? { onMalformedJob: options.onMalformedJob } : {}),
    logger: logger.child({ component: 'webhook-delivery' }),
  });
  return {
    delivery,
    async close(closeOptions) {
      await delivery.close(closeOptions);
      // BullMQ's connection queues commands while disconnected: QUIT would wait for Redis to come back.
      // A QUIT that fails leaves the connection closed all the same: nothing is left to release.
      if (connection.status === 'ready') await connection.quit().catch(() => undefined);
      else connection.disconnect();
    },
  };
}

/** Without WEBHOOK_URL an instance only reads and replays; a worker role then cannot work. */
function workerWithoutUrl(worker: boolean): false {
  if (worker) throw new OptionsError('A worker delivers webhooks: set WEBHOOK_URL.', { option: 'WEBHOOK_URL' });
  return false;
}
