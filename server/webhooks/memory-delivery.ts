/**
 * Memory delivery: the engine over the in-process queue, as on Redis but NOT durable: pending events,
 * history and dead letters live in this process only, bounded (10 000 undelivered events). The
 * endpoint's held backlog is in this process too (server/webhooks/memory-backlog.ts).
 */
import { pino, type Logger } from 'pino';
import { validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { createDeliveryEngine, type DeliveryEngine, type DeliveryEngineSettings, type DeliveryTarget } from './delivery-engine.js';
import { createMemoryDeliveryQueue, type MemoryDeliveryQueueSettings } from './memory-delivery-queue.js';
import { changeHooks, createEndpointCircuit, createMemoryHealthStore, type EndpointHealthOptions } from './endpoint-circuit.js';
import { createMemoryBacklog } from './memory-backlog.js';

/** Options of `createMemoryDelivery`, checked at creation; each default is where it is declared. */
export interface MemoryDeliveryOptions extends DeliveryTarget, MemoryDeliveryQueueSettings, DeliveryEngineSettings {
  /**
   * Where attempts, close and drops are logged.
   * @defaultValue a pino logger named `webhook-delivery`
   */
  logger?: Logger;
  /**
   * The endpoint's circuit, in this process (x-decisions: endpoint-health); `false` turns it off.
   * @defaultValue on, with the policy's figures
   */
  endpointHealth?: EndpointHealthOptions;
}

/**
 * Creates the in-process engine for one webhook URL; throws `OptionsError` for bad options.
 * @example const delivery = createMemoryDelivery({ url: 'https://hooks.example.com/session-events', secret: process.env.WEBHOOK_SECRET });
 */
export function createMemoryDelivery(options: MemoryDeliveryOptions): DeliveryEngine {
  const check = validateWebhookUrl(options.url, { allowPrivate: options.allowPrivate, allowLoopbackHttp: options.insecureLocalhost });
  if (!check.ok) throw new OptionsError(`Invalid webhook URL: ${check.reason}`, { option: 'url' });
  const logger = options.logger ?? pino({ name: 'webhook-delivery' });
  const { schedule, observer, opentelemetry, concurrency, maxPending, keepDelivered, keepDead, endpointHealth, ...target } = options;
  const queue = createMemoryDeliveryQueue({
    target: check.url.origin,
    logger: logger.child({ webhook: check.url.origin }),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(maxPending !== undefined ? { maxPending } : {}),
    ...(keepDelivered !== undefined ? { keepDelivered } : {}),
    ...(keepDead !== undefined ? { keepDead } : {}),
  });
  const circuit =
    endpointHealth === false
      ? undefined
      : createEndpointCircuit({
          ...endpointHealth,
          ...changeHooks(endpointHealth, observer),
          store: createMemoryHealthStore(),
          backlog: createMemoryBacklog(queue),
          endpoint: check.url.origin,
          logger,
        });
  return createDeliveryEngine({
    queue,
    ...(circuit ? { circuit } : {}),
    target,
    logger,
    ...(schedule ? { schedule } : {}),
    ...(observer ? { observer } : {}),
    ...(opentelemetry ? { opentelemetry } : {}),
  });
}
