/**
 * The service's webhook sender (x-decisions: webhook-ack, webhook-retry,
 * webhook-url-policy): `enqueue` returns at once; each event is delivered by `deliverEvent`
 * (pinned HTTPS, 5 s deadline, only 200 counts) and retried with backoff, the same event
 * object on every attempt so receivers can dedupe.
 *
 * Every attempt carries the Standard Webhooks headers (webhook-id stable per event, signed
 * when `secret` is set; x-decisions: webhook-standard-headers). NOT durable: pending events
 * live in this process only (the Redis outbox, server/webhooks/redis-outbox.ts, is).
 *
 * At close: no new events; an event waiting for its next retry gives up the wait and gets
 * one final attempt now; an attempt that fails while closing is not retried; whatever is
 * still unfinished when the close timeout passes is logged as dropped (error level).
 */
import { OptionsError } from '../../spec/options-error.js';
import { pino, type Logger } from 'pino';
import { deliverEvent, DELIVERY_TIMEOUT_MS, type DeliveryResult } from '../../spec/delivery/deliver-event.js';
import type { WebhookLookup } from '../../spec/delivery/resolve-webhook-host.js';
import { validateWebhookUrl } from '../../spec/webhook-url.js';
import { contract, type SessionEvent } from '../../spec/contract.js';
import { createWebhookHeaders } from '../../spec/delivery/webhook-headers.js';
import type { OutboxEvent } from '../sessions/session-store.js';
import { randomUUID } from 'node:crypto';
import { backoffDelayMs, WEBHOOK_RETRY_DEFAULTS } from './retry-schedule.js';
import type { WebhookSender } from './webhook-sender.js';

/** Options of `createWebhookSender`, checked at creation. */
export interface CreateWebhookSenderOptions {
  /** The receiver's https:// URL. */
  url: string;
  /** Allow loopback and private receivers, for local testing only (default false; logged as a warning). */
  allowPrivate?: boolean;
  /**
   * Allow plain http:// and unverified TLS to loopback receivers only (default false): the
   * sandbox's local receivers (x-decisions in spec/sandbox.yaml: sandbox-webhooks).
   */
  insecureLocalhost?: boolean;
  /** CA certificate(s) to trust instead of the system roots (PEM). */
  ca?: string | Buffer;
  /** Where attempts are logged (default: a pino logger named webhook-sender on stdout). */
  logger?: Logger;
  /** Deadline of one attempt in ms (default 5000: a receiver answers 200 within 5 s). */
  timeoutMs?: number;
  /** Attempts per event, the first included (default 6, x-decisions: webhook-retry). */
  maxAttempts?: number;
  /** Backoff base in ms (default 1000). */
  baseDelayMs?: number;
  /** Backoff cap in ms (default 60 000). */
  maxDelayMs?: number;
  /** Resolver returning every address of a host (default: the system's); for tests. */
  lookup?: WebhookLookup;
  /** Attempts in flight at once, across all events, so a burst cannot open thousands of sockets (default 16). */
  concurrency?: number;
  /** Random source in [0, 1) for the jitter (default Math.random); for tests. */
  random?: () => number;
  /** Standard Webhooks signing secret (`whsec_` + base64); undefined: unsigned (webhook-id and webhook-timestamp still sent). */
  secret?: string | undefined;
}

/** Thrown by `createWebhookSender` for options that can never work; the message says what to fix. */
export class WebhookSenderConfigError extends OptionsError {
  override name = 'WebhookSenderConfigError';
}

/** Default time `close` waits for pending deliveries, in ms (WebhookSender contract). */
const CLOSE_TIMEOUT_MS = 10_000;
/** Default number of attempts in flight at once. */
const DEFAULT_CONCURRENCY = 16;

interface Job {
  /** The webhook-id of every attempt. */
  id: string;
  event: SessionEvent;
  attempts: number;
  /** Ends a backoff wait early (set while waiting). */
  wake?: () => void;
  /** Set when close gave up on the job: its late outcome is ignored. */
  abandoned: boolean;
}

/** The in-process sender: also takes a bare `SessionEvent`, which gets a fresh webhook-id. */
export interface InProcessWebhookSender extends WebhookSender {
  enqueue(event: OutboxEvent | SessionEvent): void;
}

/**
 * Creates the sender for one webhook URL; throws `WebhookSenderConfigError` for bad options.
 *
 * @example
 * const sender = createWebhookSender({ url: 'https://hooks.example.com/session-events', secret: process.env.WEBHOOK_SECRET });
 */
export function createWebhookSender(options: CreateWebhookSenderOptions): InProcessWebhookSender {
  const config = checkOptions(options);
  let headers: ReturnType<typeof createWebhookHeaders>;
  try {
    headers = createWebhookHeaders({ secret: options.secret });
  } catch (error) {
    throw new WebhookSenderConfigError((error as Error).message);
  }
  const logger = (options.logger ?? pino({ name: 'webhook-sender' })).child({ webhook: config.origin });
  if (options.allowPrivate) {
    logger.warn(
      'allowPrivate is ON: webhooks may go to loopback and private-network addresses. For local testing only; ' +
        'never enable it in production: webhooks must go only to public hosts.',
    );
  }
  const jobs = new Set<Job>();
  const running = new Set<Promise<void>>();
  let closing = false;
  let closed: Promise<void> | undefined;

  // Optional chaining: enqueue logs whatever it is given and must never throw.
  const identity = (event: SessionEvent | undefined) => ({
    event: event?.event,
    sessionId: event?.session?.id,
    timestamp: event?.timestamp,
  });

  // A counting semaphore: a finished attempt hands its slot straight to the next waiter.
  let active = 0;
  const waiting: (() => void)[] = [];
  const acquire = () =>
    active < config.concurrency ? (active++, Promise.resolve()) : new Promise<void>((resolve) => waiting.push(resolve));
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };

  /** One attempt once a slot is free; undefined when close gave up on the job meanwhile. */
  const attempt = async (job: Job): Promise<DeliveryResult | undefined> => {
    await acquire();
    try {
      if (job.abandoned) return undefined;
      return await deliverEvent(options.url, job.event, {
        timeoutMs: config.timeoutMs,
        allowPrivate: options.allowPrivate,
        insecureLocalhost: options.insecureLocalhost,
        ca: options.ca,
        lookup: options.lookup,
        headers: (body) => headers(job.id, body),
      });
    } finally {
      release();
    }
  };

  const waitOrWake = (job: Job, ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        job.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      job.wake = done;
    });

  const run = async (job: Job): Promise<void> => {
    for (;;) {
      job.attempts++;
      const result = await attempt(job);
      if (!result || job.abandoned) return;
      const fields = { ...identity(job.event), webhookId: job.id, attempt: job.attempts, maxAttempts: config.maxAttempts, durationMs: result.durationMs };
      if (result.delivered) {
        logger.info({ ...fields, status: result.status, address: result.resolvedAddress }, 'webhook delivered');
        return;
      }
      const failure = { ...fields, reason: result.reason, status: result.status, detail: result.message };
      if (result.status === 410) {
        logger.error(failure, 'webhook endpoint answered 410 Gone; not retried');
        return;
      }
      if (job.attempts >= config.maxAttempts) {
        logger.error(failure, `webhook delivery failed ${job.attempts} times; giving up`);
        return;
      }
      if (closing) {
        logger.error(failure, 'webhook attempt failed while the sender closes; dropped, not retried');
        return;
      }
      const delay = backoffDelayMs(job.attempts, config, options.random);
      logger.warn({ ...failure, nextDelayMs: delay }, 'webhook attempt failed; will retry');
      await waitOrWake(job, delay);
    }
  };

  return {
    enqueue(given) {
      const isOutbox = typeof (given as OutboxEvent | undefined)?.id === 'string' && 'payload' in (given as object);
      const event = (isOutbox ? (given as OutboxEvent).payload : given) as SessionEvent;
      const webhookId = isOutbox ? (given as OutboxEvent).id : `msg_${randomUUID()}`;
      if (closing) {
        logger.error(identity(event), 'webhook event enqueued after close; dropped');
        return;
      }
      const valid = contract.validate('SessionEvent', event);
      if (!valid.ok) {
        logger.error({ detail: valid.message }, 'webhook event is not a SessionEvent (spec/openapi.yaml); dropped');
        return;
      }
      let snapshot: SessionEvent;
      try {
        // The wire form, copied once: every attempt sends the same bytes even if the caller
        // mutates its object afterwards (dedupe by identity, source spec §6 rule 3).
        snapshot = JSON.parse(JSON.stringify(event)) as SessionEvent;
      } catch (error) {
        logger.error({ ...identity(event), err: error }, 'webhook event cannot be serialized as JSON; dropped');
        return;
      }
      const job: Job = { id: webhookId, event: snapshot, attempts: 0, abandoned: false };
      jobs.add(job);
      // Start on a later turn: the caller's answer never waits for DNS or a connection.
      const task = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => run(job))
        .catch((error: unknown) => logger.error({ ...identity(event), err: error }, 'webhook sender defect'))
        .finally(() => {
          jobs.delete(job);
          running.delete(task);
        });
      running.add(task);
    },

    close({ timeoutMs = CLOSE_TIMEOUT_MS } = {}) {
      closed ??= (async () => {
        closing = true;
        // Retries waiting for their backoff give it up and make one final attempt now.
        for (const job of jobs) job.wake?.();
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), timeoutMs);
        });
        const outcome = await Promise.race([Promise.allSettled([...running]).then(() => 'done' as const), timedOut]);
        clearTimeout(timer);
        if (outcome === 'timeout') {
          for (const job of jobs) {
            job.abandoned = true;
            logger.error({ ...identity(job.event), attempt: job.attempts }, `webhook still pending after ${timeoutMs} ms close timeout; dropped`);
          }
        }
        logger.info('webhook sender closed');
      })();
      return closed;
    },
  };
}

/** Checks the options once, so that a bad URL fails at startup, not at the first event. */
function checkOptions(options: CreateWebhookSenderOptions) {
  const check = validateWebhookUrl(options.url, { allowPrivate: options.allowPrivate, allowLoopbackHttp: options.insecureLocalhost });
  if (!check.ok) {
    throw new WebhookSenderConfigError(`Invalid webhook URL: ${check.reason}`);
  }
  const number = (name: keyof CreateWebhookSenderOptions, fallback: number, min: number) => {
    const value = options[name] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
      throw new WebhookSenderConfigError(`${name} must be an integer ≥ ${min}; got ${String(value)}.`);
    }
    return value;
  };
  const config = {
    // Logs name the origin only: the path may carry the receiver's secret token (x-decisions: webhook-signing).
    origin: check.url.origin,
    timeoutMs: number('timeoutMs', DELIVERY_TIMEOUT_MS, 1),
    maxAttempts: number('maxAttempts', WEBHOOK_RETRY_DEFAULTS.maxAttempts, 1),
    baseDelayMs: number('baseDelayMs', WEBHOOK_RETRY_DEFAULTS.baseDelayMs, 0),
    maxDelayMs: number('maxDelayMs', WEBHOOK_RETRY_DEFAULTS.maxDelayMs, 0),
    concurrency: number('concurrency', DEFAULT_CONCURRENCY, 1),
  };
  if (config.maxDelayMs < config.baseDelayMs) {
    throw new WebhookSenderConfigError(`maxDelayMs (${config.maxDelayMs}) must be ≥ baseDelayMs (${config.baseDelayMs}).`);
  }
  return config;
}
