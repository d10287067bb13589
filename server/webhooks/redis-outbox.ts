/**
 * The durable outbox on Redis (x-decisions: webhook-outbox). The resume script already wrote
 * the event into the session's hash slot and an intent into `{outbox}:intents`
 * (server/sessions/redis-session-store.ts). Here:
 *
 * - `enqueue` adds a BullMQ job whose jobId is the event's webhook-id (a second add of the
 *   same id is ignored), then clears the intent;
 * - the relay of every instance re-adds the event of any intent older than `relayMinAgeMs`,
 *   so a SIGKILL between the script and the add loses nothing;
 * - the worker delivers (pinned HTTPS, Standard Webhooks headers), retries on the schedule,
 *   honours Retry-After on 429/503, stops on 410; a job that runs out stays in BullMQ's
 *   failed set: the dead-letter list, replayed with the same webhook-id.
 *
 * Jobs left active by a killed instance are taken back by BullMQ's stalled-job check.
 */
import { OptionsError } from '../../spec/options-error.js';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { deliverEvent, DELIVERY_TIMEOUT_MS, type DeliveryResult } from '../../spec/delivery/deliver-event.js';
import type { WebhookLookup } from '../../spec/delivery/resolve-webhook-host.js';
import { createWebhookHeaders } from '../../spec/delivery/webhook-headers.js';
import type { SessionEvent } from '../../spec/types.js';
import { validateWebhookUrl } from '../../spec/webhook-url.js';
import { checkKeyPrefix, intentMember, redisKeys } from '../sessions/redis-keys.js';
import type { OutboxEvent } from '../sessions/session-store.js';
import { retryAfterMs, scheduledDelayMs, STANDARD_WEBHOOKS_SCHEDULE_MS } from '../../spec/delivery/retry-rules.js';
import type { WebhookSender } from './webhook-sender.js';
import type { DeliveryObserver } from './delivery-types.js';
import { observeAttempt } from './observe-attempt.js';

/** Options of `createRedisOutbox`, checked at creation. */
export interface RedisOutboxOptions {
  /** The store's client (fails fast): intents and events. */
  client: Redis | Cluster;
  /** A client for BullMQ (ioredis with `maxRetriesPerRequest: null`); owned by the caller. */
  connection: Redis | Cluster;
  /** The store's key prefix (default `session-resume:`). */
  keyPrefix?: string;
  /** The receiver's https:// URL; required when `worker` is on. */
  url?: string;
  /** Allow loopback and private receivers, for local testing only (default false). */
  allowPrivate?: boolean;
  /** Allow plain http:// and unverified TLS to loopback receivers only, for local testing (default false). */
  insecureLocalhost?: boolean;
  /** Told about every attempt and delivery, e.g. the metrics (default: none). */
  observer?: DeliveryObserver;
  /** CA certificate(s) to trust instead of the system roots (PEM). */
  ca?: string | Buffer;
  /** Resolver returning every address of a host (default: the system's); for tests. */
  lookup?: WebhookLookup;
  /** Standard Webhooks secret (`whsec_` + base64); undefined: unsigned. */
  secret?: string | undefined;
  /** Delay before each attempt in ms, the first included (default: the Standard Webhooks example). */
  schedule?: readonly number[];
  /** Run a delivery worker in this process (default true). */
  worker?: boolean;
  /** Run the relay in this process (default true). */
  relay?: boolean;
  /** Deliveries in flight at once in this process (default 16). */
  concurrency?: number;
  /** How often the relay looks for events no job took, in ms (default 1000). */
  relayIntervalMs?: number;
  /** Age of an intent before the relay acts on it, in ms (default 2000). */
  relayMinAgeMs?: number;
  /** How long a job may be held by an instance before another takes it back, in ms (default 15 000). */
  lockDurationMs?: number;
  /** Where attempts are logged (default: pino named webhook-outbox). */
  logger?: Logger;
}

/** One event in the dead-letter list. */
export interface DeadEvent {
  /** The webhook-id, kept by a replay. */
  id: string;
  payload: SessionEvent;
  attempts: number;
  /** Why the last attempt failed. */
  reason: string;
  /** When it failed for the last time (ms since the epoch). */
  failedAt: number | undefined;
}

/** The outbox: a `WebhookSender` plus the dead-letter operations. */
export interface RedisOutbox extends WebhookSender {
  /** Events that exhausted the schedule (or got 410), oldest first. */
  listDead(): Promise<DeadEvent[]>;
  /** Puts one dead event back with a fresh schedule and the same webhook-id; false when there is none with that id. */
  replay(id: string): Promise<boolean>;
  /** Replays every dead event; returns how many. */
  replayAll(): Promise<number>;
  /** One relay pass (also run on a timer); returns how many events it handed to the queue. */
  relayOnce(): Promise<number>;
}

/** Thrown by `createRedisOutbox` for options that can never work. */
export class RedisOutboxConfigError extends OptionsError {
  override name = 'RedisOutboxConfigError';
}

/** A failed attempt, with the receiver's Retry-After (ms) when it answered 429 or 503 with one. */
class AttemptFailedError extends Error {
  override name = 'AttemptFailedError';
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

/** The BullMQ queue name under the `{outbox}` prefix. */
export const OUTBOX_QUEUE = 'webhooks';
const JOB_NAME = 'session-event';
const COMPLETED_KEEP_SECONDS = 24 * 60 * 60;

/**
 * Creates the outbox; with `worker` and `relay` off it only serves the dead-letter operations (CLI).
 * @example
 * const outbox = createRedisOutbox({ client, connection: new Redis(url, { maxRetriesPerRequest: null }),
 *   url: 'https://hooks.example.org/in', secret: process.env.WEBHOOK_SECRET, schedule: [0, 5000, 300000] });
 * await createApp({ store, apiKeys, webhookSender: outbox });
 */
export function createRedisOutbox(options: RedisOutboxOptions): RedisOutbox {
  const keys = redisKeys(checkKeyPrefix(options.keyPrefix ?? 'session-resume:'));
  const schedule = checkSchedule(options.schedule ?? STANDARD_WEBHOOKS_SCHEDULE_MS);
  const logger = options.logger ?? pino({ name: 'webhook-outbox' });
  const queue = new Queue(OUTBOX_QUEUE, { connection: options.connection, prefix: keys.queuePrefix });
  queue.on('error', (err) => logger.warn({ err: err.message }, 'outbox queue error'));
  const { client } = options;
  const pending = new Set<Promise<void>>();
  let closing = false;

  const add = (event: OutboxEvent) =>
    queue.add(JOB_NAME, { payload: event.payload }, {
      jobId: event.id,
      attempts: schedule.length,
      delay: schedule[0],
      backoff: { type: 'schedule' },
      removeOnComplete: { age: COMPLETED_KEEP_SECONDS },
      removeOnFail: false,
    });
  const publish = async (event: OutboxEvent) => {
    await add(event);
    await client.zrem(keys.intents, intentMember(event.payload.session.id, event.id));
  };

  const relayOnce = () => relayPass({ client, keys, add, logger, minAgeMs: options.relayMinAgeMs ?? 2000 });
  const stopRelay = options.relay === false ? undefined : startTimer(relayOnce, options.relayIntervalMs ?? 1000, logger);
  const worker = options.worker === false ? undefined : startWorker(options, keys.queuePrefix, schedule, logger);

  return {
    enqueue(event) {
      if (closing) {
        // Durable anyway: the intent stays and the relay of any instance takes the event.
        logger.warn({ webhookId: event.id }, 'outbox closing: event left to the relay');
        return;
      }
      const task = publish(event)
        .catch((err: unknown) =>
          logger.warn({ webhookId: event.id, err: (err as Error).message }, 'enqueue failed; the relay will retry it'),
        )
        .finally(() => pending.delete(task));
      pending.add(task);
    },
    async close({ timeoutMs = 10_000 } = {}) {
      closing = true;
      stopRelay?.();
      await withTimeout(Promise.allSettled([...pending]), timeoutMs);
      // Active deliveries finish; waiting and delayed jobs stay in Redis for the next instance.
      await withTimeout(worker?.close() ?? Promise.resolve(), timeoutMs);
      await queue.close().catch(() => undefined);
    },
    listDead: () => listDead(queue),
    async replay(id) {
      const job = await queue.getJob(id);
      if (!job || !(await job.isFailed())) return false;
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      return true;
    },
    async replayAll() {
      let count = 0;
      for (const dead of await listDead(queue)) {
        const job = await queue.getJob(dead.id);
        if (job && (await job.isFailed())) {
          await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
          count++;
        }
      }
      return count;
    },
    relayOnce,
  };
}

async function listDead(queue: Queue): Promise<DeadEvent[]> {
  const jobs = await queue.getFailed(0, -1);
  return jobs
    .filter((job): job is Job & { id: string } => typeof job.id === 'string')
    .map((job) => ({
      id: job.id,
      payload: (job.data as { payload: SessionEvent }).payload,
      attempts: job.attemptsMade,
      reason: job.failedReason ?? '',
      failedAt: job.finishedOn,
    }))
    .sort((a, b) => (a.failedAt ?? 0) - (b.failedAt ?? 0));
}

interface RelayDeps {
  client: Redis | Cluster;
  keys: ReturnType<typeof redisKeys>;
  add: (event: OutboxEvent) => Promise<unknown>;
  logger: Logger;
  minAgeMs: number;
}

/** Intents whose script wrote no event are cleared after this long (the script can no longer run late). */
const INTENT_GIVE_UP_MS = 60 * 60 * 1000;

/** Intents read per batch; a pass goes on while batches come back full (at most 20 batches). */
const RELAY_BATCH = 500;

/** One pass over old intents: add the events that exist, clear what is settled. */
async function relayPass(deps: RelayDeps): Promise<number> {
  let added = 0;
  for (let batch = 0; batch < 20; batch++) {
    const result = await relayBatch(deps);
    added += result.added;
    // Stop at a short batch, or at a full one that settled nothing (its scripts have not run yet).
    if (result.read < RELAY_BATCH || result.settled === 0) break;
  }
  return added;
}

async function relayBatch({ client, keys, add, logger, minAgeMs }: RelayDeps): Promise<{ read: number; settled: number; added: number }> {
  const now = Date.now();
  const found = await client.zrangebyscore(keys.intents, '-inf', now - minAgeMs, 'WITHSCORES', 'LIMIT', 0, RELAY_BATCH);
  const intents: { member: string; score: number; sessionId: string; eventId: string }[] = [];
  for (let i = 0; i < found.length; i += 2) {
    const member = found[i] as string;
    const [sessionId, eventId] = JSON.parse(member) as [string, string];
    intents.push({ member, score: Number(found[i + 1]), sessionId, eventId });
  }
  // Sent together (one key each, so also on a cluster): one round trip for the batch.
  const stored = await Promise.all(intents.map((intent) => client.get(keys.event(intent.sessionId, intent.eventId))));
  const settled: string[] = [];
  let added = 0;
  for (const [index, intent] of intents.entries()) {
    const value = stored[index] ?? null;
    // No event key yet: the script may still run (a stalled Redis, a command re-sent later).
    if (value === null && now - intent.score < INTENT_GIVE_UP_MS) continue;
    if (value !== null && value !== '-') {
      const event = JSON.parse(value) as OutboxEvent;
      await add(event);
      logger.info({ webhookId: event.id }, 'relay handed an event to the delivery queue');
      added++;
    }
    settled.push(intent.member);
  }
  if (settled.length > 0) await client.zrem(keys.intents, ...settled);
  return { read: intents.length, settled: settled.length, added };
}

/** Runs `pass` every `intervalMs` (unref'd, never overlapping); returns the stop function. */
function startTimer(pass: () => Promise<unknown>, intervalMs: number, logger: Logger): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = async () => {
    try {
      await pass();
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'outbox relay pass failed; will retry');
    }
    if (!stopped) timer = setTimeout(() => void tick(), intervalMs).unref();
  };
  timer = setTimeout(() => void tick(), intervalMs).unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function startWorker(options: RedisOutboxOptions, prefix: string, schedule: readonly number[], logger: Logger): Worker {
  if (!options.url) throw new RedisOutboxConfigError('The outbox worker needs the webhook URL.');
  const check = validateWebhookUrl(options.url, { allowPrivate: options.allowPrivate, allowLoopbackHttp: options.insecureLocalhost });
  if (!check.ok) throw new RedisOutboxConfigError(`Invalid webhook URL: ${check.reason}`);
  let headers: ReturnType<typeof createWebhookHeaders>;
  try {
    headers = createWebhookHeaders({ secret: options.secret });
  } catch (err) {
    throw new RedisOutboxConfigError((err as Error).message);
  }
  const url = options.url;
  const log = logger.child({ webhook: check.url.origin });
  const lockDuration = options.lockDurationMs ?? 15_000;
  const worker = new Worker(
    OUTBOX_QUEUE,
    async (job: Job) => {
      const id = String(job.id);
      const payload = (job.data as { payload: SessionEvent }).payload;
      const at = new Date();
      const result = await deliverEvent(url, payload, {
        timeoutMs: DELIVERY_TIMEOUT_MS,
        allowPrivate: options.allowPrivate,
        insecureLocalhost: options.insecureLocalhost,
        ca: options.ca,
        lookup: options.lookup,
        headers: (body) => headers(id, body),
      });
      observeAttempt(options.observer, payload, result, at);
      judge(result, id, job.attemptsMade + 1, schedule.length, log);
    },
    {
      connection: options.connection,
      prefix,
      concurrency: options.concurrency ?? 16,
      lockDuration,
      stalledInterval: lockDuration,
      // A job held by a killed instance comes back this many times before it counts as failed.
      maxStalledCount: 100,
      settings: { backoffStrategy: (attemptsMade, _type, err) => nextDelay(schedule, attemptsMade, err) },
    },
  );
  worker.on('error', (err) => log.warn({ err: err.message }, 'outbox worker error'));
  worker.on('failed', (job, err) => {
    if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) {
      log.error({ webhookId: job.id, attempts: job.attemptsMade, reason: err.message }, 'webhook moved to the dead-letter list');
    } else if (job && err instanceof UnrecoverableError) {
      log.error({ webhookId: job.id, reason: err.message }, 'webhook moved to the dead-letter list');
    }
  });
  return worker;
}

/** Throws unless delivered: UnrecoverableError on 410, AttemptFailedError (with Retry-After) otherwise. */
function judge(result: DeliveryResult, id: string, attempt: number, attempts: number, log: Logger): void {
  const fields = { webhookId: id, attempt, attempts, durationMs: result.durationMs };
  if (result.delivered) {
    log.info({ ...fields, status: result.status }, 'webhook delivered');
    return;
  }
  log.warn({ ...fields, reason: result.reason, status: result.status }, 'webhook attempt failed');
  if (result.status === 410) throw new UnrecoverableError(`The receiver answered 410 Gone: ${result.message}`);
  const honoured = result.status === 429 || result.status === 503;
  throw new AttemptFailedError(result.message, honoured ? retryAfterMs(result.retryAfter) : undefined);
}

/** The scheduled delay before attempt `attemptsMade + 1`, never shorter than the receiver's Retry-After. */
function nextDelay(schedule: readonly number[], attemptsMade: number, err: Error | undefined): number {
  return scheduledDelayMs(schedule, attemptsMade, err instanceof AttemptFailedError ? err.retryAfterMs : 0);
}

function checkSchedule(schedule: readonly number[]): readonly number[] {
  if (!Array.isArray(schedule) || schedule.length === 0 || schedule.some((ms) => !Number.isInteger(ms) || ms < 0)) {
    throw new RedisOutboxConfigError('The retry schedule must list at least one delay in whole ms ≥ 0.');
  }
  return schedule;
}

async function withTimeout(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
