/**
 * The shared receiver store on Redis (a single node or a Redis Cluster). The ack path is one
 * round trip, shared by the deliveries of one event-loop turn (record-batch.ts): a Lua script
 * of ours (store-scripts.ts) decides first delivery or duplicate, by the payload's identity and
 * by `webhook-id`, and for a first delivery writes the dedupe records and the event into an
 * inbox in the same atomic step, so the 200 follows a durable record.
 * After the answer the events of a few milliseconds become BullMQ jobs together through
 * `Queue.addBulk` (retries with backoff, failed set as dead letters, locks and stalled-job
 * recovery), and then leave the inbox; a completed job is removed, so what stays per event is
 * its dedupe record (about 110 bytes an identity) until the window ends. An instance that dies
 * between the answer and the hand-over leaves the event in the inbox, where any instance's
 * sweep (every `stalledIntervalMs`) finds it. The worker skips a job whose event the dedupe
 * record marks processed, so an event queued again by a late hand-over runs once.
 *
 * BullMQ and ioredis are used through their documented APIs only: `Queue`, `Worker`,
 * `Queue.addBulk`, `Queue.getJob`, `Job.retry`, and ioredis' `defineCommand` on the store's
 * own connection (BullMQ's connections carry none of our commands, and our scripts touch none
 * of BullMQ's keys).
 */
import { randomBytes } from 'node:crypto';
import type { Job, Queue as QueueType, Worker } from 'bullmq';
import { checkInteger, checkOption } from '../../../spec/options-error.js';
import type { ReceivedEvent } from '../tolerant-event.js';
import {
  StoreUnavailableError,
  type DeadLetter,
  type ProcessingOptions,
  type ReceiverStore,
  type RecordOutcome,
  type RecordedEvent,
  runHandler,
} from '../store.js';
import { createConnector, type RedisConnection } from './connection.js';
import { createHandOver, type HandOver } from './hand-over.js';
import { createRecordBatch } from './record-batch.js';
import { loadRedisLibraries } from './libraries.js';
import { BUCKETS_PER_WINDOW, bucketKey, createBucketWindow, PROCESSED_MARK, storeKeys, tripleField, webhookIdField, withStoreCommands } from './store-scripts.js';

// Top-level await: importing this subpath without bullmq or ioredis installed fails here,
// with a message that names the install command.
const libs = await loadRedisLibraries();

/** Default key prefix shared by every instance of one receiver; keys carry it as the hash tag `{prefix}`. */
export const DEFAULT_REDIS_PREFIX = 'session-resume-api';
/** Default BullMQ queue name. */
export const DEFAULT_QUEUE_NAME = 'webhook-events';
/** Default events processed at the same time per instance. */
export const DEFAULT_REDIS_CONCURRENCY = 1;
/** Default milliseconds a recording may take before the answer is 503. */
export const DEFAULT_RECORD_TIMEOUT_MS = 2000;
/** Default milliseconds a processing lock lasts without renewal. */
export const DEFAULT_LOCK_DURATION_MS = 30_000;
/** Default milliseconds between checks for work a dead instance left (stalled jobs, inbox). */
export const DEFAULT_STALLED_INTERVAL_MS = 30_000;
/** Default times a job may be found stalled before it is dead-lettered. */
export const DEFAULT_MAX_STALLED_COUNT = 5;
/** Entries kept in BullMQ's event stream of the queue (nothing here reads it). */
const EVENTS_MAX_LEN = 100;
/** Inbox entries one sweep hands over at most. */
const SWEEP_LIMIT = 500;
/**
 * Milliseconds recorded events wait to be handed over together: one `addBulk` (one MULTI)
 * for all of them instead of an `add` each, which was most of the receiver's CPU per event
 * (bench/findings.md). The event is durable in the inbox meanwhile; only its processing waits.
 */
const HANDOVER_DELAY_MS = 5;
/** Most events one hand-over carries. */
const HANDOVER_MAX_EVENTS = 200;
/** Most events one record script call carries (the deliveries of one event-loop turn). */
const RECORD_MAX_EVENTS = 200;

/** Options of `createRedisEventStore`; give exactly one of `url`, `client` or `clusterNodes`. */
export interface RedisEventStoreOptions {
  /** Redis URL of a single node, e.g. redis://127.0.0.1:6379. */
  url?: string;
  /** An ioredis `Redis` or `Cluster` to copy connection settings from (duplicated; never closed by the store). */
  client?: RedisConnection;
  /** Redis Cluster seed nodes, `host:port` each. */
  clusterNodes?: readonly string[];
  /** Key prefix (default 'session-resume-api'), the hash tag of every key; share it between instances. */
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
  event: ReceivedEvent;
  receivedAt: number;
}

const JOB_NAME = 'session-event';

/** One event on its way into the record script; `data` is set when its batch is sent (its time recorded is the batch's). */
interface Recording {
  key: string;
  event: ReceivedEvent;
  webhookId: string | undefined;
  id: string;
  data?: JobData;
}
/** The record script's answer for one event: recording id, duplicate 0|1, dead-lettered 0|1. */
type RecordResult = readonly [string, number, number];

/** Rejects with StoreUnavailableError when `promise` does not settle within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`Redis did not answer ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Random bytes drawn 4 KiB at a time: one randomFillSync per 341 ids instead of one each
// (it showed at 4.6 % of the ack path's CPU profile).
let pool = Buffer.alloc(0);
let offset = 0;
/** A recording id: 'e' + 96 random bits (never all digits, never ':', as BullMQ job ids must be). */
function newId(): string {
  if (offset + 12 > pool.length) {
    pool = randomBytes(4092);
    offset = 0;
  }
  offset += 12;
  return `e${pool.toString('base64url', offset - 12, offset)}`;
}

function checkOptions(options: RedisEventStoreOptions) {
  const where = 'createRedisEventStore';
  const { prefix = DEFAULT_REDIS_PREFIX, queueName = DEFAULT_QUEUE_NAME } = options;
  checkOption(typeof prefix === 'string' && /^[^:{}]+$/.test(prefix), `${where}: prefix must be a non-empty string without ":", "{" or "}"`);
  checkOption(typeof queueName === 'string' && /^[^:{}]+$/.test(queueName), `${where}: queueName must be a non-empty string without ":", "{" or "}"`);
  for (const name of ['concurrency', 'recordTimeoutMs', 'lockDurationMs', 'stalledIntervalMs'] as const) {
    if (options[name] !== undefined) checkInteger(`${where}: ${name}`, options[name], { min: 1 });
  }
  if (options.maxStalledCount !== undefined) checkInteger(`${where}: maxStalledCount`, options.maxStalledCount, { min: 0 });
  return createConnector(options, libs, where);
}

/**
 * Creates a Redis-backed `ReceiverStore` shared by every instance with the same prefix and
 * queue, on one node or a Redis Cluster (one code path). Throws `OptionsError` for a bad option.
 *
 * @param options - `url`, `client` or `clusterNodes`; the rest optional
 * @param [options.prefix='session-resume-api'] - key prefix and hash tag; share it between instances
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
 *   store: createRedisEventStore({ url: 'redis://127.0.0.1:6379' }), // or { clusterNodes: ['10.0.0.5:6379', ...] }
 *   onEvent: async (event) => console.log(event.event, event.session.id),
 * });
 */
export function createRedisEventStore(options: RedisEventStoreOptions): ReceiverStore {
  const connect = checkOptions(options ?? {});
  const {
    prefix = DEFAULT_REDIS_PREFIX,
    queueName = DEFAULT_QUEUE_NAME,
    concurrency = DEFAULT_REDIS_CONCURRENCY,
    recordTimeoutMs = DEFAULT_RECORD_TIMEOUT_MS,
    lockDurationMs = DEFAULT_LOCK_DURATION_MS,
    stalledIntervalMs = DEFAULT_STALLED_INTERVAL_MS,
    maxStalledCount = DEFAULT_MAX_STALLED_COUNT,
    process: runWorker = true,
  } = options;
  const keys = storeKeys(prefix, queueName);
  const windowOf = createBucketWindow(keys);
  // Request path: fail fast while Redis is down (no offline queue) or hung (command timeout),
  // so the answer is a quick 503 and never a 200 for an unrecorded event. No auto-pipelining:
  // the deliveries of one turn share one command already (record-batch.ts), and a pipeline
  // per turn around it only added its own cost. The store's own connection: its scripts are
  // defined here and nowhere else (BullMQ's fifty stay off the ack path).
  const failFast = { commandTimeout: recordTimeoutMs, maxRetriesPerRequest: 1 };
  const connection = withStoreCommands(connect(failFast, { enableOfflineQueue: false }));
  connection.on('error', () => {}); // reported through the failing commands
  // BullMQ's queue connection (hand-over, dead letters): BullMQ on a cluster needs its keys in
  // one slot, so the queue prefix is the hash tag itself.
  const queueConnection = connect(failFast, { enableOfflineQueue: false });
  queueConnection.on('error', () => {});
  const queue: QueueType<JobData> = new libs.Queue<JobData>(queueName, { connection: queueConnection, prefix: keys.bullPrefix, streams: { events: { maxLen: EVENTS_MAX_LEN } } });
  queue.on('error', () => {});
  // Connected and BullMQ ready: the first recording waits for it (within its timeout).
  let isReady = false;
  const connected = new Promise<void>((resolve) => (connection.status === 'ready' ? resolve() : connection.once('ready', () => resolve())));
  const ready = Promise.all([queue.waitUntilReady(), connected]).then(() => {
    isReady = true;
  });
  ready.catch(() => {});

  let worker: Worker<JobData> | undefined;
  let workerConnection: RedisConnection | undefined;
  let processing: ProcessingOptions | undefined;
  let bucketMs = 1;
  /** Handler runs under way in this instance; close() waits for them. */
  const running = new Set<Promise<void>>();
  let sweeper: NodeJS.Timeout | undefined;
  let closed = false;

  let handOver: HandOver<JobData> | undefined;
  const createQueueHandOver = (p: ProcessingOptions) =>
    createHandOver<JobData>({
      queue,
      store: connection,
      keys,
      name: JOB_NAME,
      jobOptions: (id) => ({
        jobId: id,
        attempts: p.maxAttempts,
        backoff: { type: 'exponential' as const, delay: p.retryDelayMs },
        // Processed events leave nothing but their dedupe record; failed ones are the dead letters.
        removeOnComplete: true,
        removeOnFail: false,
      }),
      delayMs: HANDOVER_DELAY_MS,
      maxEvents: HANDOVER_MAX_EVENTS,
      // Still in the inbox: the next sweep of any instance hands them over.
      onError: (error) => p.onStoreError?.(error, 'receiver: recorded events could not be queued yet; the inbox sweep will'),
    });

  /** Hands over inbox entries older than one sweep interval (their instance died or lost Redis before its hand-over). */
  async function sweep(): Promise<void> {
    const now = Date.now();
    const found = await connection.sraClaimStale(keys.inbox, keys.inboxAt, now - stalledIntervalMs, now, SWEEP_LIMIT);
    for (let i = 0; i + 1 < found.length; i += 2) handOver!.add({ id: found[i]!, data: JSON.parse(found[i + 1]!) as JobData });
  }

  /** Moves a failed (dead-lettered) job back to the queue with fresh attempts; false otherwise. */
  async function retryIfDead(id: string): Promise<boolean> {
    const job = await queue.getJob(id);
    if (!job || !(await job.isFailed())) return false;
    try {
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    } catch {
      // Another delivery or instance retried it first.
      return false;
    }
    await connection.zrem(keys.dead, id);
    return true;
  }

  /** One job: nothing when the event was processed already, else the handler; then the marker. */
  async function processJob(p: ProcessingOptions, job: Job<JobData>): Promise<void> {
    if (!isReady) await ready;
    const id = job.id!;
    const bucket = bucketKey(keys, job.data.receivedAt, bucketMs);
    const field = tripleField(job.data.key);
    if ((await connection.hget(bucket, field)) === `${id}${PROCESSED_MARK}`) return;
    await runHandler(p, recordedFrom(job, job.attemptsMade + 1));
    // The handler ran: a failure to mark it leaves at most a second run, never a lost event.
    await connection.sraProcessed(bucket, keys.inbox, keys.inboxAt, keys.dead, field, id).catch((error: unknown) => p.onStoreError?.(error, 'receiver: an event was processed but could not be marked so'));
  }

  function startWorker(p: ProcessingOptions) {
    workerConnection = connect({ maxRetriesPerRequest: null });
    // The worker reconnects by itself; the receiver's logger hears about it.
    workerConnection.on('error', (error) => p.onStoreError?.(error, 'receiver worker: Redis connection error'));
    const run = (job: Job<JobData>) => {
      const under = processJob(p, job).finally(() => running.delete(under));
      running.add(under);
      return under;
    };
    worker = new libs.Worker<JobData>(queueName, run, {
      connection: workerConnection,
      prefix: keys.bullPrefix,
      concurrency,
      lockDuration: lockDurationMs,
      stalledInterval: stalledIntervalMs,
      maxStalledCount,
    });
    worker.on('error', (error) => p.onStoreError?.(error, 'receiver worker error'));
    // Also emitted for a job that stalled more than maxStalledCount times.
    worker.on('failed', (job, error) => {
      if (!job) return;
      const final = job.attemptsMade >= (job.opts.attempts ?? 1) || job.finishedOn !== undefined;
      // The dead set lets a redelivery put the event back in the queue (see record).
      if (final) connection.zadd(keys.dead, Date.now(), job.id!).catch((e: unknown) => p.onStoreError?.(e, 'receiver: a dead letter could not be marked'));
      p.onFailure(error, recordedFrom(job, job.attemptsMade), final);
    });
    const runSweep = () => void ready.then(() => sweep()).catch((error: unknown) => p.onStoreError?.(error, 'receiver: inbox sweep failed'));
    runSweep();
    sweeper = setInterval(runSweep, stalledIntervalMs);
    sweeper.unref();
  }

  /** One round trip for the recordings of one event-loop turn: the record script over the window's buckets. */
  const recordings = createRecordBatch<Recording, RecordResult>({
    maxItems: RECORD_MAX_EVENTS,
    async send(items) {
      const receivedAt = Date.now();
      const buckets = windowOf(receivedAt, Math.round(processing!.windowSeconds * 1000), bucketMs);
      const args: Array<string | number> = [keys.inbox, keys.inboxAt, keys.dead, ...buckets.keys, buckets.expireAt];
      for (const item of items) {
        item.data = { key: item.key, event: item.event, receivedAt };
        args.push(tripleField(item.key), item.webhookId === undefined ? '' : webhookIdField(item.webhookId), item.id, receivedAt, JSON.stringify(item.data));
      }
      // One timer for the batch: its deliveries arrived in the same turn.
      const out = await within(connection.sraRecord(3 + buckets.keys.length, ...args), recordTimeoutMs, 'the recording');
      return items.map((_, i) => [out[3 * i] as string, out[3 * i + 1] as number, out[3 * i + 2] as number] as const);
    },
  });

  return {
    start(p) {
      if (processing) throw new Error('createRedisEventStore: start() was called twice; one store serves one receiver');
      processing = p;
      bucketMs = Math.max(1, Math.ceil(Math.round(p.windowSeconds * 1000) / BUCKETS_PER_WINDOW));
      handOver = createQueueHandOver(p);
      if (runWorker) startWorker(p);
    },

    async record(key, event, webhookId): Promise<RecordOutcome> {
      if (closed) throw new StoreUnavailableError('the Redis store is closed');
      if (!processing) throw new StoreUnavailableError('the Redis store was not started by a receiver');
      const recording: Recording = { key, event, webhookId, id: newId() };
      const { id } = recording;
      try {
        if (!isReady) await within(ready, recordTimeoutMs, 'the connection');
        const [recorded, duplicate, dead] = await recordings.add(recording);
        if (duplicate === 0) {
          handOver!.add({ id, data: recording.data! });
          return { id, duplicate: false };
        }
        // A dedupe record never suppresses a retry of a failed processing.
        if (dead === 1) await within(retryIfDead(recorded), recordTimeoutMs, 'the dead-letter retry');
        return { id: recorded, duplicate: true };
      } catch (error) {
        if (error instanceof StoreUnavailableError) throw error;
        throw new StoreUnavailableError(`Redis refused the recording: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    },

    async deadLetters(): Promise<DeadLetter[]> {
      const jobs = await queue.getFailed(0, -1);
      return jobs
        .filter((job): job is Job<JobData> => Boolean(job))
        // Oldest recording first; events of one millisecond (one hand-over) in the order they failed.
        .sort((a, b) => a.data.receivedAt - b.data.receivedAt || (a.finishedOn ?? 0) - (b.finishedOn ?? 0))
        .map((job) => {
          const { attempt: _attempt, ...recorded } = recordedFrom(job, 0);
          return { ...recorded, attempts: job.attemptsMade, error: job.failedReason ?? '' };
        });
    },

    retryDeadLetter: retryIfDead,

    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweeper);
      // Hand-overs under way finish (or stay in the inbox for the next instance's sweep).
      handOver?.flush();
      await handOver?.settled();
      // Worker.close waits for the jobs under way; queued jobs stay in Redis for the next
      // instance. Without a connection it would wait for Redis to come back (BullMQ 6), and no
      // job can be finished anyway: it closes at once, and a job whose end was not recorded is
      // recovered by another instance's stalled check (its processed marker prevents a rerun).
      await worker?.close(workerConnection?.status !== 'ready');
      await Promise.allSettled([...running]);
      await queue.close();
      connection.disconnect();
      queueConnection.disconnect();
      workerConnection?.disconnect();
    },
  };
}

function recordedFrom(job: Job<JobData>, attempt: number): RecordedEvent {
  return { id: job.id!, key: job.data.key, event: job.data.event, receivedAt: job.data.receivedAt, attempt };
}
