/**
 * Redis delivery: the engine over the BullMQ queue, plus the outbox relay that hands over events of
 * resumes whose process died before enqueueing (x-decisions: webhook-outbox). Once queued, the job
 * holds the event and its intent and event key go.
 */
import type { Cluster, Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { STANDARD_WEBHOOKS_SCHEDULE_MS } from '@session-resume-api/runtime/delivery/retry-rules';
import { validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';
import { checkKeyPrefix, DEFAULT_SERVER_KEY_PREFIX, intentMember, redisKeys } from '../redis/redis-keys.js';
import type { WebhookMessage } from '../core/webhook-message.js';
import { createBullmqQueue, type BullmqDeliveryQueue, type RedisQueueSettings } from './bullmq-queue.js';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { createDeliveryEngine, type DeliveryEngine, type DeliveryEngineSettings, type DeliveryTarget } from './delivery-engine.js';
import { relayPass, startTimer } from './outbox-relay.js';
import { serverTracing } from '../core/server-tracing.js';
import { changeHooks, createEndpointCircuit, type EndpointHealthOptions } from './endpoint-circuit.js';
import { createRedisHealthStore } from './redis-endpoint-health.js';

/** Default interval of the relay's look for events no job took, in ms. */
export const DEFAULT_RELAY_INTERVAL_MS = 1000;
/** Default age of an intent before the relay acts on it, in ms. */
export const DEFAULT_RELAY_MIN_AGE_MS = 2000;

/**
 * Options of `createRedisDelivery`, checked at creation. A worker (the default) needs the receiver's
 * URL; an instance without one passes `worker: false` and only serves reads and replays.
 */
export type RedisDeliveryOptions = RedisDeliveryBaseOptions & (RedisDeliveryWorker | RedisDeliveryReader);

/** An instance that delivers. */
export interface RedisDeliveryWorker {
  /** The receiver's https:// URL. */
  url: string;
  /**
   * Deliver from this instance.
   * @defaultValue `true`
   */
  worker?: true;
}

/** An instance that only reads and replays (the operator's commands). */
export interface RedisDeliveryReader {
  /**
   * The receiver's URL, recorded with each event when known.
   * @defaultValue none
   */
  url?: string;
  /** Never delivers from this instance. */
  worker: false;
}

/** The options of `createRedisDelivery` whatever its role. */
export interface RedisDeliveryBaseOptions extends Omit<DeliveryTarget, 'url'>, DeliveryEngineSettings, RedisQueueSettings {
  /** The store's client (fails fast): intents and events. */
  client: Redis | Cluster;
  /** A client for BullMQ (ioredis with `maxRetriesPerRequest: null`); owned by the caller. */
  connection: Redis | Cluster;
  /**
   * The store's key prefix.
   * @defaultValue {@link DEFAULT_SERVER_KEY_PREFIX} (`'session-resume:'`)
   */
  keyPrefix?: string;
  /**
   * Run the outbox relay in this instance.
   * @defaultValue `true`
   */
  relay?: boolean;
  /**
   * How often the relay looks for events no job took, in ms.
   * @defaultValue {@link DEFAULT_RELAY_INTERVAL_MS} (1000)
   */
  relayIntervalMs?: number;
  /**
   * Age of an intent before the relay acts on it, in ms.
   * @defaultValue {@link DEFAULT_RELAY_MIN_AGE_MS} (2000)
   */
  relayMinAgeMs?: number;
  /**
   * Where attempts and the relay's failures are logged.
   * @defaultValue a pino logger named `webhook-delivery`
   */
  logger?: Logger;
  /**
   * The endpoint's circuit, shared on Redis by every instance (x-decisions: endpoint-health); `false` turns it off.
   * @defaultValue on, with the policy's figures
   */
  endpointHealth?: EndpointHealthOptions;
}

/** The engine on Redis, plus one relay pass on demand. */
export interface RedisDelivery extends DeliveryEngine {
  /** One relay pass (also run on a timer); returns how many events it handed to the queue. */
  relayOnce(): Promise<number>;
  /** False when no instance ever created the queue under this key prefix. */
  everWritten(): Promise<boolean>;
}

/**
 * Creates the Redis delivery engine; with `worker` and `relay` off it only serves the operator's reads and replays (CLI).
 * @example
 * const delivery = createRedisDelivery({ client, connection: new Redis(url, { maxRetriesPerRequest: null }),
 *   url: 'https://hooks.example.org/in', secret: process.env.WEBHOOK_SECRET, schedule: [0, 5000, 300000] });
 * await createApp({ store, apiKeys, webhookDelivery: delivery });
 */
export function createRedisDelivery(options: RedisDeliveryOptions): RedisDelivery {
  const keys = redisKeys(checkKeyPrefix(options.keyPrefix ?? DEFAULT_SERVER_KEY_PREFIX));
  const schedule = options.schedule ?? STANDARD_WEBHOOKS_SCHEDULE_MS;
  const logger = options.logger ?? pino({ name: 'webhook-delivery' });
  const worker = options.worker ?? true;
  if (worker && !options.url) throw new OptionsError('The delivery worker needs the webhook URL.', { option: 'url' });
  const check = options.url ? validateWebhookUrl(options.url, { allowPrivate: options.allowPrivate, allowLoopbackHttp: options.insecureLocalhost }) : undefined;
  const queue = createBullmqQueue({
    connection: options.connection,
    prefix: keys.queuePrefix,
    heldKeys: keys,
    target: check?.ok ? check.url.origin : '',
    maxAttempts: schedule.length,
    ...pick(options, ['concurrency', 'lockDurationMs', 'stalledIntervalMs', 'keepDelivered', 'onConnectionError', 'onMalformedJob']),
    readOnly: !worker && options.relay === false,
    logger,
  });
  const { client } = options;
  const { publish, publishMany } = createPublishers(client, keys, queue, schedule[0] ?? 0);
  const circuit =
    options.endpointHealth === false
      ? undefined
      : createEndpointCircuit({
          ...options.endpointHealth,
          ...changeHooks(options.endpointHealth, options.observer),
          store: createRedisHealthStore(client, keys.endpointHealth),
          backlog: queue.held,
          drains: worker,
          endpoint: check?.ok ? check.url.origin : '',
          logger,
        });
  const engine = createDeliveryEngine({
    ...(circuit ? { circuit } : {}),
    queue: { ...queue, add: publish },
    schedule,
    logger,
    ...(worker && options.url ? { target: { ...options, url: options.url } } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
    ...(options.opentelemetry ? { opentelemetry: options.opentelemetry } : {}),
  });
  const tracing = serverTracing(options.opentelemetry);
  const relayOnce = () => relayPass({ client, keys, publish: publishMany, logger, minAgeMs: options.relayMinAgeMs ?? DEFAULT_RELAY_MIN_AGE_MS, tracing });
  const stopRelay = options.relay === false ? undefined : startTimer(relayOnce, options.relayIntervalMs ?? DEFAULT_RELAY_INTERVAL_MS, logger);
  return {
    ...engine,
    close(closeOptions) {
      stopRelay?.();
      return engine.close(closeOptions);
    },
    relayOnce,
    everWritten: () => queue.everWritten(),
  };
}

/**
 * Hands events to the queue, then drops their intents and event keys (the job holds the event
 * now): one at a time, or the relay's whole batch in one BullMQ addBulk.
 */
function createPublishers(client: RedisDeliveryOptions['client'], keys: ReturnType<typeof redisKeys>, queue: BullmqDeliveryQueue, delayMs: number) {
  const settle = (events: readonly WebhookMessage[]) =>
    Promise.all(
      events.flatMap((event) => [
        client.zrem(keys.intents, intentMember(event.payload.session.id, event.id)),
        client.del(keys.event(event.payload.session.id, event.id)),
      ]),
    );
  return {
    publish: async (event: WebhookMessage) => {
      await queue.add(event, delayMs);
      await settle([event]);
    },
    publishMany: async (events: WebhookMessage[]) => {
      await queue.addMany(events, delayMs);
      await settle(events);
    },
  };
}

function pick<T extends object, K extends keyof T>(object: T, names: K[]): Partial<Pick<T, K>> {
  const picked: Partial<Pick<T, K>> = {};
  for (const name of names) if (object[name] !== undefined) picked[name] = object[name];
  return picked;
}
