/**
 * The one delivery engine of a process: Redis delivery on Redis (durable; the server relays and,
 * unless WEBHOOK_WORKER=0, delivers), else memory delivery, whose pending events die with the process.
 */
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config.js';
import type { ServerMetrics } from '../metrics/index.js';
import { webhookStartUpLine } from '../start-up-summary.js';
import type { DeliveryEngine } from '../webhooks/delivery-engine.js';
import type { RedisRuntime } from './redis-runtime.js';
import { loadOpenTelemetry } from './opentelemetry-runtime.js';
import { endpointHealthSettings } from './endpoint-notice-runtime.js';

/** The started engine (undefined with webhooks off) and how to stop it. */
export interface DeliveryRuntime {
  engine: DeliveryEngine | undefined;
  /** Lets pending attempts finish for at most `timeoutMs`, then closes the engine and its connection. */
  close(timeoutMs: number): Promise<void>;
}

/** Options of `startDelivery`. */
export interface StartDeliveryOptions {
  config: ServerConfig;
  logger: Logger;
  /**
   * The process's Redis: Redis delivery runs on it.
   * @defaultValue none: memory delivery
   */
  redis?: RedisRuntime;
  /**
   * Whether this process delivers (a worker always does).
   * @defaultValue `config.webhook.worker` (WEBHOOK_WORKER), else `true`
   */
  worker?: boolean;
  /**
   * Counts every attempt and watches the engine's counts.
   * @defaultValue none: no metrics
   */
  metrics?: ServerMetrics;
}

/**
 * Starts the engine (none when WEBHOOK_URL is unset) and logs the start-up line about webhooks.
 * @example const delivery = await startDelivery({ config, logger, redis }); await delivery.close(8000);
 */
export async function startDelivery(options: StartDeliveryOptions): Promise<DeliveryRuntime> {
  const { config, logger, redis, metrics } = options;
  const worker = options.worker ?? config.webhook?.worker ?? true;
  const observer = metrics?.observer;
  let runtime: { engine: DeliveryEngine; close(closeOptions: { timeoutMs: number }): Promise<void> } | undefined;
  if (config.webhook && redis) {
    const started = await redis.startRedisDelivery({ worker, relay: true }, observer);
    runtime = { engine: started.delivery, close: (closeOptions) => started.close(closeOptions) };
  } else if (config.webhook) {
    const engine = await startMemoryDelivery(config.webhook, logger, metrics);
    runtime = { engine, close: (closeOptions) => engine.close(closeOptions) };
  }
  const startUp = webhookStartUpLine(config.webhook ? { ...config, webhook: { ...config.webhook, worker } } : config);
  logger.info(startUp.fields, startUp.message);
  if (metrics && runtime) metrics.watchDelivery(runtime.engine);
  return { engine: runtime?.engine, close: async (timeoutMs) => runtime?.close({ timeoutMs }) };
}

async function startMemoryDelivery(webhook: NonNullable<ServerConfig['webhook']>, logger: Logger, metrics: ServerMetrics | undefined): Promise<DeliveryEngine> {
  // Plain http:// passed the config only for loopback receivers (sandbox or WEBHOOK_INSECURE_LOCALHOST=1).
  const ca = webhook.caFile ? await readFile(webhook.caFile) : undefined;
  const { createMemoryDelivery } = await import('../webhooks/memory-delivery.js');
  const opentelemetry = await loadOpenTelemetry();
  return createMemoryDelivery({
    url: webhook.url,
    allowPrivate: webhook.allowPrivate,
    insecureLocalhost: webhook.insecureLocalhost === true,
    secret: webhook.secret,
    schedule: webhook.schedule,
    concurrency: webhook.concurrency,
    ...(ca ? { ca } : {}),
    ...endpointHealthSettings(webhook, ca, logger),
    ...(metrics ? { observer: metrics.observer } : {}),
    ...(opentelemetry ? { opentelemetry } : {}),
    logger: logger.child({ component: 'webhook-delivery' }),
  });
}
