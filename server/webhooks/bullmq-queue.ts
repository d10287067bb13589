/**
 * The durable delivery queue on BullMQ's documented `Queue` and `Worker`: one job per event (jobId =
 * webhook-id, so a second add is ignored), failed attempts in the job's data, the delivering one as
 * its return value (no extra write), retries scheduled by `backoffStrategy` with the engine's delay,
 * dead letters in the failed set. Bounded by `keepDelivered`, `keepDead` and `eventsMaxLen`.
 * A first attempt is added `lifo`, so fresh events never starve behind a backlog of retries.
 * An attempt the endpoint's circuit holds joins the held backlog at its due time (the job's time
 * plus its delay, or the `dueAt` its failed attempt wrote) and is released in that order
 * (server/webhooks/bullmq-backlog.ts).
 * A pending event is about 0.9 kB of Redis (bench/delivery-redis-size.ts).
 */
import { DelayedError, Queue, UnrecoverableError, Worker, type Job, type JobType } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import type { TraceContext } from '@session-resume-api/runtime/trace-context';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import type { WebhookMessage } from '../core/webhook-message.js';
import type { AttemptHandler, DeadEvent, DeliveryQueue } from './delivery-queue.js';
import { createBullmqBacklog, parkedAt, type BullmqBacklog, type BullmqBacklogKeys } from './bullmq-backlog.js';
import { DEFAULT_CONCURRENCY, DEFAULT_LIST_LIMIT, DELIVERY_STATES, KEEP_DEAD, KEEP_DELIVERED, withTimeout } from './delivery-queue.js';
import type { DeliveryAttempt, DeliveryInspector, DeliveryRecord, DeliveryState, DeliveryStats } from './delivery-types.js';

/** The BullMQ queue's settings, which `createRedisDelivery` takes as they are. */
export interface RedisQueueSettings {
  /**
   * Attempts in flight at once in this instance.
   * @defaultValue {@link DEFAULT_CONCURRENCY} (50)
   */
  concurrency?: number;
  /**
   * A job's lock without renewal, in ms: another instance takes a job back only once it lapsed.
   * @defaultValue {@link DELIVERY_LOCK}`.durationMs` (8000)
   */
  lockDurationMs?: number;
  /**
   * How often jobs whose lock lapsed are looked for, in ms.
   * @defaultValue {@link DELIVERY_LOCK}`.stalledIntervalMs` (1000)
   */
  stalledIntervalMs?: number;
  /**
   * Delivered jobs kept with their history.
   * @defaultValue {@link KEEP_DELIVERED}`.count` (1000 jobs, at most 3600 s)
   */
  keepDelivered?: { count: number; ageSeconds: number };
  /**
   * Gets the queue's and worker's connection errors instead of the logger (one line per outage).
   * @defaultValue none: a warning on the logger for each error
   */
  onConnectionError?: (source: string, error: Error) => void;
  /**
   * Told about a job the reads skip because it holds no event (written by something else under this
   * prefix); reads never fail because of one.
   * @defaultValue none: a warning on the logger
   */
  onMalformedJob?: (id: string, problem: string) => void;
}

/** Options of `createBullmqQueue`. */
export interface BullmqQueueOptions extends RedisQueueSettings {
  /** A client for BullMQ (ioredis with `maxRetriesPerRequest: null`); owned by the caller. */
  connection: Redis | Cluster;
  /** BullMQ's key prefix (server/redis/redis-keys.ts `queuePrefix`). */
  prefix: string;
  /** The keys of the endpoint's held backlog (server/redis/redis-keys.ts). */
  heldKeys: BullmqBacklogKeys;
  /** The target's origin, recorded with each event (empty for a read-only queue). */
  target: string;
  /** Attempts per event, the first included. */
  maxAttempts: number;
  /**
   * Lock renewal interval of jobs under way, in ms.
   * @defaultValue {@link DELIVERY_LOCK}`.renewMs` (1000)
   */
  lockRenewMs?: number;
  /**
   * Dead letters kept.
   * @defaultValue {@link KEEP_DEAD} (10 000)
   */
  keepDead?: number;
  /**
   * Entries of BullMQ's events stream.
   * @defaultValue {@link DEFAULT_EVENTS_MAX_LEN} (1000)
   */
  eventsMaxLen?: number;
  /**
   * Read only (the operator CLI): never writes the queue's metadata.
   * @defaultValue `false`
   */
  readOnly?: boolean;
  /**
   * Where queue errors are logged.
   * @defaultValue a pino logger named `webhook-delivery`
   */
  logger?: Logger;
}

/**
 * The worker's lock (BullMQ's `lockDuration`, `lockRenewTime`, `stalledInterval`). A stalled
 * instance (CPU stall, pause, partition) keeps its jobs for at least `durationMs - renewMs` = 7 s,
 * longer than an attempt's 5 s deadline, so a stall shorter than a delivery timeout never hands a
 * job over; a dead instance's job is taken back within `durationMs + stalledIntervalMs` = 9 s.
 */
export const DELIVERY_LOCK = { durationMs: 8000, renewMs: 1000, stalledIntervalMs: 1000 } as const;

/** Default entries of BullMQ's events stream kept per queue. */
export const DEFAULT_EVENTS_MAX_LEN = 1000;

/** The BullMQ queue name under the `{outbox}` prefix. */
export const DELIVERY_QUEUE_NAME = 'webhooks';
const JOB_NAME = 'session-event';

/** A job's data: the event, its trace context, its target, its attempts (absent until the first). */
interface JobData {
  payload: SessionEvent;
  trace?: TraceContext;
  target?: string;
  attempts?: DeliveryAttempt[];
  /** When the next attempt of a failed one is due, ms since the epoch (written with the failed attempt). */
  dueAt?: number;
}

/** A failed attempt with the delay the engine decided before the next one. */
class RetryLater extends Error {
  override name = 'RetryLater';
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

const TYPES: Record<DeliveryState, JobType[]> = {
  pending: ['wait', 'delayed', 'prioritized', 'waiting-children'],
  delivering: ['active'],
  delivered: ['completed'],
  dead: ['failed'],
};

/** The queue over BullMQ, plus whether anything was ever written under its prefix. */
export interface BullmqDeliveryQueue extends DeliveryQueue {
  /** False when no instance ever created this queue (a wrong key prefix, for instance). */
  everWritten(): Promise<boolean>;
  /** Takes many events in one round trip (BullMQ `addBulk`), like `add` for each. */
  addMany(events: readonly WebhookMessage[], delayMs: number): Promise<void>;
  /** The events the endpoint's circuit holds, in order of due time (their jobs parked in BullMQ's delayed set). */
  readonly held: BullmqBacklog;
}

/** `start` adds this instance's worker. */
export function createBullmqQueue(options: BullmqQueueOptions): BullmqDeliveryQueue {
  const logger = options.logger ?? pino({ name: 'webhook-delivery' });
  const keepDelivered = options.keepDelivered ?? KEEP_DELIVERED;
  const queue = new Queue(DELIVERY_QUEUE_NAME, {
    connection: options.connection,
    prefix: options.prefix,
    streams: { events: { maxLen: options.eventsMaxLen ?? DEFAULT_EVENTS_MAX_LEN } },
    ...(options.readOnly ? { skipMetasUpdate: true } : {}),
  });
  const onError = options.onConnectionError ?? ((source: string, err: Error) => logger.warn({ err: err.message }, `${source} error`));
  queue.on('error', (err) => onError('delivery queue', err));
  let worker: Worker | undefined;
  const held = createBullmqBacklog(queue, options.connection, options.heldKeys, logger);
  const job = (event: WebhookMessage, delayMs: number) => ({
    name: JOB_NAME,
    data: { payload: event.payload, ...(event.trace ? { trace: event.trace } : {}), ...(options.target ? { target: options.target } : {}) } satisfies JobData,
    opts: {
      jobId: event.id,
      attempts: options.maxAttempts,
      delay: delayMs,
      // The first attempt goes before any waiting retry or backlog (BullMQ: taken next); retries are queued at the back.
      lifo: true,
      backoff: { type: 'engine' },
      removeOnComplete: { count: keepDelivered.count, age: keepDelivered.ageSeconds },
      removeOnFail: { count: options.keepDead ?? KEEP_DEAD },
    },
  });

  return {
    durable: true,
    async add(event: WebhookMessage, delayMs: number) {
      const { name, data, opts } = job(event, delayMs);
      await queue.add(name, data, opts);
    },
    async addMany(events, delayMs) {
      if (events.length > 0) await queue.addBulk(events.map((event) => job(event, delayMs)));
    },
    start(handler: AttemptHandler) {
      worker = startWorker(options, handler, held, onError);
      adoptParked(held, logger);
    },
    ...bullmqInspector(queue, options.onMalformedJob ?? ((id, problem) => logger.warn({ jobId: id, problem }, 'malformed delivery job skipped'))),
    async replay(id) {
      const job = await queue.getJob(id);
      if (!job || !(await job.isFailed())) return false;
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      return true;
    },
    ...bullmqRecovery(queue),
    async close(timeoutMs) {
      // Attempts under way finish; waiting and delayed jobs stay in Redis for the next instance.
      await withTimeout(worker?.close() ?? Promise.resolve(), timeoutMs);
      await queue.close().catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'delivery queue not closed cleanly; its jobs stay in Redis'));
    },
    async everWritten() {
      return (await queue.getVersion()) !== null;
    },
    held,
  };
}

/** Held jobs an earlier version parked are recorded once, so that the drain releases them too; logged. */
function adoptParked(held: BullmqBacklog, logger: Logger): void {
  void held.adopt().then(
    (count) => count > 0 && logger.info({ events: count }, 'held events parked by an earlier version recorded in the held backlog'),
    (err: unknown) => logger.warn({ err: (err as Error).message }, 'held events of an earlier version not recorded; the next start tries again'),
  );
}

/** Recovery by time over BullMQ: the delayed jobs that failed at least once, and promoting one. */
function bullmqRecovery(queue: Queue): Pick<DeliveryQueue, 'listRetrying' | 'promote'> {
  return {
    async listRetrying() {
      const jobs = (await queue.getDelayed(0, -1)) as Job[];
      return jobs.flatMap((job) => {
        const last = malformation(job) === undefined ? attemptsOf(job).at(-1) : undefined;
        return last ? [{ id: String(job.id), payload: (job.data as JobData).payload, failedAt: last.at }] : [];
      });
    },
    async promote(id) {
      const job = await queue.getJob(id);
      if (!job || !(await job.isDelayed())) return false;
      try {
        await job.promote();
        return true;
      } catch (error) {
        // Another instance promoted it first: then this one did nothing. Any other failure is the caller's.
        if (await job.isDelayed()) throw error;
        return false;
      }
    },
  };
}

/** What is wrong with a job's data for the reads, or undefined when it holds an event. */
function malformation(job: Job | undefined): string | undefined {
  const data = job?.data as Partial<JobData> | undefined;
  if (!data || typeof data !== 'object') return 'no data';
  const payload = data.payload as Partial<SessionEvent> | undefined;
  if (!payload || typeof payload !== 'object') return 'no event payload';
  if (typeof payload.event !== 'string' || typeof payload.session?.id !== 'string') return 'a payload without event and session.id';
  return undefined;
}

/** The read side over BullMQ's documented getters; jobs without an event are reported and skipped. */
function bullmqInspector(queue: Queue, onMalformed: (id: string, problem: string) => void): DeliveryInspector & Pick<DeliveryQueue, 'listDead'> {
  const wellFormed = (job: Job | undefined): job is Job => {
    const problem = malformation(job);
    if (problem !== undefined) onMalformed(String(job?.id ?? '?'), problem);
    return problem === undefined;
  };
  const record = async (job: Job, state?: DeliveryState): Promise<DeliveryRecord> => {
    const data = job.data as JobData;
    return {
      id: String(job.id),
      event: data.payload,
      state: state ?? stateOf(await job.getState()),
      target: data.target ?? '',
      attempts: attemptsOf(job),
    };
  };

  return {
    async show(id) {
      const job = await queue.getJob(id);
      return job && wellFormed(job) ? record(job) : undefined;
    },
    async list({ state, limit = DEFAULT_LIST_LIMIT } = {}) {
      const states = state ? [state] : DELIVERY_STATES;
      const found: { job: Job; state: DeliveryState }[] = [];
      for (const one of states) {
        for (const job of await queue.getJobs(TYPES[one], 0, limit - 1, false)) if (wellFormed(job)) found.push({ job, state: one });
      }
      found.sort((a, b) => b.job.timestamp - a.job.timestamp);
      return Promise.all(found.slice(0, limit).map(({ job, state: one }) => record(job, one)));
    },
    async stats() {
      const counts = await queue.getJobCounts(...DELIVERY_STATES.flatMap((state) => TYPES[state]));
      const stats: DeliveryStats = { pending: 0, delivering: 0, delivered: 0, dead: 0 };
      for (const state of DELIVERY_STATES) for (const type of TYPES[state]) stats[state] += counts[type] ?? 0;
      return stats;
    },
    async listDead() {
      const jobs = await queue.getFailed(0, -1);
      return jobs
        .filter(wellFormed)
        .map(deadEvent)
        .sort((a, b) => a.failedAt.localeCompare(b.failedAt));
    },
  };
}

function startWorker(options: BullmqQueueOptions, handler: AttemptHandler, held: BullmqBacklog, onError: (source: string, err: Error) => void): Worker {
  const worker = new Worker(
    DELIVERY_QUEUE_NAME,
    async (job: Job, token?: string) => {
      const data = job.data as JobData;
      const outcome = await handler({
        id: String(job.id),
        payload: data.payload,
        attemptsMade: job.attemptsMade,
        queuedAt: job.timestamp,
        dueAt: data.dueAt ?? job.timestamp + (job.opts.delay ?? 0),
        ...(data.trace ? { trace: data.trace } : {}),
      });
      if ('held' in outcome) {
        // Held by the circuit: recorded in the held backlog first (a job parked but not recorded would
        // never be released), then parked, no attempt counted (a processor delaying its own job).
        await held.add(String(job.id), outcome.held.dueAt);
        await job.moveToDelayed(parkedAt(outcome.held.dueAt), token);
        throw new DelayedError();
      }
      const { next } = outcome;
      // The history lives and goes with the job; the delivering attempt is written with the completion.
      if (next.kind === 'delivered') return outcome.attempt;
      const { dueAt: _due, ...rest } = data;
      const attempts = [...(data.attempts ?? []), outcome.attempt];
      // The retry's due time goes with the same write: its place if the circuit holds it.
      await job.updateData(next.kind === 'retry' ? { ...rest, attempts, dueAt: Date.now() + next.delayMs } : { ...rest, attempts });
      if (next.kind === 'dead') throw new UnrecoverableError(outcome.detail ?? next.reason);
      throw new RetryLater(outcome.detail ?? 'attempt failed', next.delayMs);
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
      lockDuration: options.lockDurationMs ?? DELIVERY_LOCK.durationMs,
      lockRenewTime: options.lockRenewMs ?? DELIVERY_LOCK.renewMs,
      stalledInterval: options.stalledIntervalMs ?? DELIVERY_LOCK.stalledIntervalMs,
      // A job held by a killed instance comes back this many times before it counts as failed.
      maxStalledCount: 100,
      settings: { backoffStrategy: (_attemptsMade, _type, err) => (err instanceof RetryLater ? err.delayMs : 0) },
    },
  );
  worker.on('error', (err) => onError('delivery worker', err));
  return worker;
}

/** Every attempt of a job: the failed ones in its data, then the delivering one (its return value). */
function attemptsOf(job: Job): DeliveryAttempt[] {
  const failed = (job.data as JobData).attempts ?? [];
  const delivering = job.returnvalue as DeliveryAttempt | null | undefined;
  return delivering && typeof delivering === 'object' ? [...failed, delivering] : failed;
}

function stateOf(state: string): DeliveryState {
  for (const one of DELIVERY_STATES) if ((TYPES[one] as string[]).includes(state)) return one;
  return 'pending';
}

function deadEvent(job: Job): DeadEvent {
  const data = job.data as JobData;
  return {
    id: String(job.id),
    payload: data.payload,
    target: data.target ?? '',
    // BullMQ counts the failure that sent a held event to the dead letters (backlog full): it made no request.
    attempts: job.attemptsMade - (attemptsOf(job).at(-1)?.result === 'held_overflow' ? 1 : 0),
    reason: job.failedReason ?? '',
    failedAt: new Date(job.finishedOn ?? job.timestamp).toISOString(),
  };
}
