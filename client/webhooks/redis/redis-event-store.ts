/**
 * The shared receiver store (source spec §6 rule 4) on Redis through BullMQ: one job per
 * recorded event, BullMQ's atomic deduplication as the dedupe record, its retries with
 * exponential backoff, its failed set as dead letters and its stalled-job check to pick up
 * work of a process that died after answering 200.
 *
 * Duplicate detection: each delivery proposes a fresh job id and `deduplication: { id: key,
 * ttl: window }`. BullMQ's add script runs `SET <prefix>:<queue>:de:<key> <jobId> PX ttl NX`
 * and stores the job in the same Lua script, so across any number of processes exactly one
 * delivery per window creates the job; every other one gets the existing job's id back. A
 * returned id different from the proposed one is therefore a duplicate — no second round trip,
 * no race. The record is written before `record` resolves, i.e. before the 200.
 */
import { randomUUID } from 'node:crypto';
import type { Job, JobsOptions, Worker } from 'bullmq';
import type { Redis, RedisOptions } from 'ioredis';
import { checkInteger, checkOption } from '../../../spec/options-error.js';
import type { SessionEvent } from '../../../spec/types.js';
import {
  StoreUnavailableError,
  type DeadLetter,
  type ProcessingOptions,
  type ReceiverStore,
  type RecordOutcome,
  type RecordedEvent,
} from '../store.js';
import { loadRedisLibraries } from './libraries.js';

// Top-level await: importing this subpath without bullmq or ioredis installed fails here,
// with a message that names the install command.
const { Job: JobClass, Queue, Worker: WorkerClass, Redis: RedisClient } = await loadRedisLibraries();

/** Default key prefix shared by every instance of one receiver. */
export const DEFAULT_REDIS_PREFIX = 'session-resume-api';
/** Default BullMQ queue name. */
export const DEFAULT_QUEUE_NAME = 'webhook-events';
/** Default events processed at the same time per instance. */
export const DEFAULT_REDIS_CONCURRENCY = 1;
/** Default milliseconds a recording may take before the answer is 503. */
export const DEFAULT_RECORD_TIMEOUT_MS = 2000;
/** Default milliseconds a processing lock lasts without renewal. */
export const DEFAULT_LOCK_DURATION_MS = 30_000;
/** Default milliseconds between checks for work a dead instance left. */
export const DEFAULT_STALLED_INTERVAL_MS = 30_000;
/** Default times a job may be found stalled before it is dead-lettered. */
export const DEFAULT_MAX_STALLED_COUNT = 5;

/** Options of `createRedisEventStore`; give `url` or `client`. */
export interface RedisEventStoreOptions {
  /** Redis URL, e.g. redis://127.0.0.1:6379. */
  url?: string;
  /** An ioredis client to copy connection settings from (duplicated; never closed by the store). */
  client?: Redis;
  /** Key prefix of the BullMQ queue (default 'session-resume-api'); share it between instances. */
  prefix?: string;
  /** Queue name (default 'webhook-events'). */
  queueName?: string;
  /** Events processed at the same time by this instance (default 1). */
  concurrency?: number;
  /** Milliseconds a recording may take before the answer is 503 (default 2000). */
  recordTimeoutMs?: number;
  /** Milliseconds a processing lock lasts without renewal (default 30000). */
  lockDurationMs?: number;
  /** Milliseconds between checks for work a dead instance left (default 30000). */
  stalledIntervalMs?: number;
  /** Times a job may be found stalled before it is dead-lettered (default 5). */
  maxStalledCount?: number;
  /** Start a worker in this instance (default true); false for receive-only instances. */
  process?: boolean;
}

interface JobData {
  key: string;
  event: SessionEvent;
  receivedAt: number;
}

const JOB_NAME = 'session-event';

/** Rejects with StoreUnavailableError when `promise` does not settle within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`Redis did not answer ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Creates a Redis-backed `ReceiverStore` shared by every instance using the same prefix and
 * queue. Throws `OptionsError` for a bad option.
 *
 * @param options - `url` or `client`, the rest optional
 * @param [options.prefix='session-resume-api'] - key prefix; share it between instances
 * @param [options.queueName='webhook-events'] - BullMQ queue name
 * @param [options.concurrency=1] - events processed at the same time by this instance
 * @param [options.recordTimeoutMs=2000] - ms a recording may take before the answer is 503
 * @param [options.lockDurationMs=30000] - ms a processing lock lasts without renewal
 * @param [options.stalledIntervalMs=30000] - ms between checks for work a dead instance left
 * @param [options.maxStalledCount=5] - times a job may stall before it is dead-lettered
 * @param [options.process=true] - run a worker in this instance
 * @example
 * import { createWebhookReceiver } from 'session-resume-api/webhooks';
 * import { createRedisEventStore } from 'session-resume-api/webhooks/redis';
 * const receiver = createWebhookReceiver({
 *   store: createRedisEventStore({ url: 'redis://127.0.0.1:6379' }),
 *   onEvent: async (event) => console.log(event.event, event.session.id),
 * });
 */
export function createRedisEventStore(options: RedisEventStoreOptions): ReceiverStore {
  const {
    url,
    client,
    prefix = DEFAULT_REDIS_PREFIX,
    queueName = DEFAULT_QUEUE_NAME,
    concurrency = DEFAULT_REDIS_CONCURRENCY,
    recordTimeoutMs = DEFAULT_RECORD_TIMEOUT_MS,
    lockDurationMs = DEFAULT_LOCK_DURATION_MS,
    stalledIntervalMs = DEFAULT_STALLED_INTERVAL_MS,
    maxStalledCount = DEFAULT_MAX_STALLED_COUNT,
    process: runWorker = true,
  } = options ?? {};
  const where = 'createRedisEventStore';
  checkOption(!url !== !client, `${where}: give exactly one of url (a redis:// URL) or client (an ioredis instance)`);
  checkOption(url === undefined || /^rediss?:\/\//.test(url), `${where}: url must start with redis:// or rediss:// (got ${url})`);
  checkOption(typeof prefix === 'string' && /^[^:{}]+$/.test(prefix), `${where}: prefix must be a non-empty string without ":", "{" or "}"`);
  checkOption(typeof queueName === 'string' && /^[^:{}]+$/.test(queueName), `${where}: queueName must be a non-empty string without ":", "{" or "}"`);
  for (const [name, value] of Object.entries({ concurrency, recordTimeoutMs, lockDurationMs, stalledIntervalMs })) {
    checkInteger(`${where}: ${name}`, value, { min: 1 });
  }
  checkInteger(`${where}: maxStalledCount`, maxStalledCount, { min: 0 });

  const connect = (extra: RedisOptions): Redis =>
    client ? client.duplicate(extra) : new RedisClient(url!, { lazyConnect: false, ...extra });
  // Request path: fail fast while Redis is down (no offline queue) or hung (command timeout),
  // so the answer is a quick 503 and never a 200 for an unrecorded event.
  const queueConnection = connect({ enableOfflineQueue: false, commandTimeout: recordTimeoutMs, maxRetriesPerRequest: 1 });
  queueConnection.on('error', () => {}); // reported through the failing commands
  const queue = new Queue<JobData>(queueName, { connection: queueConnection, prefix });
  queue.on('error', () => {});

  let worker: Worker<JobData> | undefined;
  let workerConnection: Redis | undefined;
  let processing: ProcessingOptions | undefined;
  let closed = false;

  const jobOptions = (p: ProcessingOptions, key: string): JobsOptions => ({
    jobId: `${key}-${randomUUID()}`,
    deduplication: { id: key, ttl: p.windowSeconds * 1000 },
    attempts: p.maxAttempts,
    backoff: { type: 'exponential', delay: p.retryDelayMs },
    // Completed jobs outlive their dedupe record (age counts from completion), so their
    // removal never deletes a live record; failed jobs are the dead letters and stay.
    removeOnComplete: { age: p.windowSeconds },
    removeOnFail: false,
  });

  const recordedFrom = (job: Job<JobData>, attempt: number): RecordedEvent => ({
    id: job.id!,
    key: job.data.key,
    event: job.data.event,
    receivedAt: job.data.receivedAt,
    attempt,
  });

  /** Moves a failed (dead-lettered) job back to the queue with fresh attempts; false otherwise. */
  async function retryIfDead(id: string): Promise<boolean> {
    const job = await JobClass.fromId<JobData>(queue, id);
    if (!job || !(await job.isFailed())) return false;
    try {
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      return true;
    } catch {
      // Another delivery or instance retried it first.
      return false;
    }
  }

  return {
    start(p) {
      if (processing) throw new Error('createRedisEventStore: start() was called twice; one store serves one receiver');
      processing = p;
      if (!runWorker) return;
      workerConnection = connect({ maxRetriesPerRequest: null });
      // The worker reconnects by itself; the receiver's logger hears about it.
      workerConnection!.on('error', (error) => p.onStoreError?.(error, 'receiver worker: Redis connection error'));
      worker = new WorkerClass<JobData>(
        queueName,
        async (job) => {
          await p.process(recordedFrom(job, job.attemptsMade + 1));
        },
        {
          connection: workerConnection,
          prefix,
          concurrency,
          lockDuration: lockDurationMs,
          stalledInterval: stalledIntervalMs,
          maxStalledCount,
        },
      );
      worker.on('error', (error) => p.onStoreError?.(error, 'receiver worker error'));
      worker.on('failed', (job, error) => {
        if (!job) return;
        const final = job.attemptsMade >= (job.opts.attempts ?? 1) || job.finishedOn !== undefined;
        p.onFailure(error, recordedFrom(job, job.attemptsMade), final);
      });
    },

    async record(key, event): Promise<RecordOutcome> {
      if (closed) throw new StoreUnavailableError('the Redis store is closed');
      if (!processing) throw new StoreUnavailableError('the Redis store was not started by a receiver');
      const opts = jobOptions(processing, key);
      try {
        const job = await within(queue.add(JOB_NAME, { key, event, receivedAt: Date.now() }, opts), recordTimeoutMs, 'the recording');
        const duplicate = job.id !== opts.jobId;
        // A dedupe record never suppresses a retry of a failed processing.
        if (duplicate && job.id) await within(retryIfDead(job.id), recordTimeoutMs, 'the dead-letter check');
        return { id: job.id!, duplicate };
      } catch (error) {
        if (error instanceof StoreUnavailableError) throw error;
        throw new StoreUnavailableError(`Redis refused the recording: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    },

    async deadLetters(): Promise<DeadLetter[]> {
      const jobs = await queue.getFailed(0, -1);
      return jobs
        .filter((job): job is Job<JobData> => Boolean(job))
        .sort((a, b) => a.timestamp - b.timestamp)
        .map((job) => {
          const { attempt: _attempt, ...recorded } = recordedFrom(job, 0);
          return { ...recorded, attempts: job.attemptsMade, error: job.failedReason ?? '' };
        });
    },

    retryDeadLetter: retryIfDead,

    async close() {
      if (closed) return;
      closed = true;
      // Worker.close waits for the jobs under way; queued jobs stay in Redis for the next instance.
      await worker?.close();
      await queue.close();
      queueConnection.disconnect();
      workerConnection?.disconnect();
    },
  };
}
