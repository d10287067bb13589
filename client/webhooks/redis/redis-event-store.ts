/**
 * The shared receiver store on Redis (a single node or a Redis Cluster). The ack path is one
 * round trip, shared by the deliveries of one event-loop turn (record-batch.ts): a Lua script
 * of ours (store-scripts.ts) decides first delivery or duplicate, by the payload's identity and
 * by `webhook-id`, and for a first delivery writes the dedupe records and the event into an
 * inbox in the same atomic step, so the 200 follows a durable record. The first deliveries of
 * one call are one batch: one inbox entry, and after the answer one BullMQ job (retries with
 * backoff, locks and stalled-job recovery); the batches of a few milliseconds are queued
 * together through `Queue.addBulk` and then leave the inbox. A completed job is removed, so
 * what stays per event is its dedupe record (about 110 bytes an identity) until the window
 * ends. An instance that dies between the answer and the hand-over leaves the batch in the
 * inbox, where any instance's sweep (every `stalledIntervalMs`) finds it. The worker runs each
 * event of a batch on its own (batch-worker.ts): it skips an event whose dedupe record marks it
 * processed, so an event queued again by a late hand-over runs once, and dead-letters events
 * one by one into the store's own dead set.
 *
 * BullMQ and ioredis are used through their documented APIs only: `Queue`, `Worker`,
 * `Queue.addBulk`, and ioredis' `defineCommand` on the store's own connection (BullMQ's
 * connections carry none of our commands, and our scripts touch none of BullMQ's keys).
 */
import { randomBytes } from 'node:crypto';
import type { Job, Queue as QueueType, Worker } from 'bullmq';
import { checkInteger, checkOption } from '@session-resume-api/runtime/options-error';
import type { ReceivedEvent } from '../tolerant-event.js';
import {
  StoreUnavailableError,
  type DeadLetter,
  type ProcessingOptions,
  type ReceiverStore,
  type RecordOutcome,
} from '../store.js';
import { createConnector, type RedisConnection } from './connection.js';
import { createBatchWorker, type BatchData, type BatchItem, type BatchWorker } from './batch-worker.js';
import { createHandOver, type HandOver } from './hand-over.js';
import { createHandlerSlots } from './handler-slots.js';
import { createRecordBatch } from './record-batch.js';
import { loadRedisLibraries } from './libraries.js';
import { BUCKETS_PER_WINDOW, createBucketWindow, storeKeys, tripleField, webhookIdField, withStoreCommands } from './store-scripts.js';

// Top-level await: importing this subpath without bullmq or ioredis installed fails here,
// with a message that names the install command.
const libs = await loadRedisLibraries();

/** Default key prefix shared by every instance of one receiver; keys carry it as the hash tag `{prefix}`. */
export const DEFAULT_REDIS_PREFIX = 'session-resume-api';
/** Default BullMQ queue name. */
export const DEFAULT_QUEUE_NAME = 'webhook-events';
/** Default handler runs at the same time per instance. */
export const DEFAULT_REDIS_CONCURRENCY = 1;
/**
 * Default most events in one job: the first deliveries of one record call, whose size it also
 * bounds. A job holds its events' payloads as received plus about 120 bytes each (recording
 * id, dedupe key, JSON).
 */
export const DEFAULT_MAX_EVENTS_PER_JOB = 50;
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
/** Most jobs (batches) one hand-over carries. */
const HANDOVER_MAX_JOBS = 200;
/**
 * Failed jobs kept, at most: a job BullMQ failed (a store error on its last attempt, too many
 * stalls) stays only until its pending events are in the store's dead set, where `deadLetters()`
 * lists them; the sweep reconciles those that could not be dead-lettered at once.
 */
const FAILED_JOBS_KEPT = 1000;
/** Failed jobs read at a time when a sweep looks for jobs to reconcile. */
const RECONCILE_PAGE = 100;

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
  /**
   * Handler runs at the same time in this instance (default 1), whether their events came in
   * one job or several. With 1, the events of a job run one after the other, in the order
   * they were recorded.
   */
  concurrency?: number;
  /** Most events in one job, the first deliveries recorded by one call (default 50). */
  maxEventsPerJob?: number;
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

const JOB_NAME = 'session-events';

/** One event on its way into the record script; `at` is when its delivery asked (its answer's deadline counts from then). */
interface Recording {
  at: number;
  key: string;
  event: ReceivedEvent;
  webhookId: string | undefined;
  id: string;
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
  for (const name of ['concurrency', 'maxEventsPerJob', 'recordTimeoutMs', 'lockDurationMs', 'stalledIntervalMs'] as const) {
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
 * @param [options.concurrency=1] - handler runs at the same time in this instance
 * @param [options.maxEventsPerJob=50] - most events in one job
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
    maxEventsPerJob = DEFAULT_MAX_EVENTS_PER_JOB,
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
  const queue: QueueType<BatchData> = new libs.Queue<BatchData>(queueName, { connection: queueConnection, prefix: keys.bullPrefix, streams: { events: { maxLen: EVENTS_MAX_LEN } } });
  queue.on('error', () => {});
  // Connected and BullMQ ready: the first recording waits for it (within its timeout).
  let isReady = false;
  const connected = new Promise<void>((resolve) => (connection.status === 'ready' ? resolve() : connection.once('ready', () => resolve())));
  const ready = Promise.all([queue.waitUntilReady(), connected]).then(() => {
    isReady = true;
  });
  ready.catch(() => {});

  let worker: Worker<BatchData> | undefined;
  let workerConnection: RedisConnection | undefined;
  let processing: ProcessingOptions | undefined;
  let bucketMs = 1;
  /** Handler runs under way in this instance; close() waits for them. */
  const running = new Set<Promise<void>>();
  let sweeper: NodeJS.Timeout | undefined;
  let closed = false;

  let handOver: HandOver<BatchData> | undefined;
  const createQueueHandOver = (p: ProcessingOptions) =>
    createHandOver<BatchData>({
      queue,
      store: connection,
      keys,
      name: JOB_NAME,
      jobOptions: (id) => ({
        jobId: id,
        attempts: p.maxAttempts,
        backoff: { type: 'exponential' as const, delay: p.retryDelayMs },
        // Processed events leave nothing but their dedupe record; dead letters are the store's own.
        removeOnComplete: true,
        removeOnFail: { count: FAILED_JOBS_KEPT },
      }),
      delayMs: HANDOVER_DELAY_MS,
      maxEvents: HANDOVER_MAX_JOBS,
      // Still in the inbox: the next sweep of any instance hands them over.
      onError: (error) => p.onStoreError?.(error, 'receiver: recorded events could not be queued yet; the inbox sweep will'),
    });

  /** Hands over inbox entries older than one sweep interval (their instance died or lost Redis before its hand-over). */
  async function sweep(): Promise<void> {
    const now = Date.now();
    const found = await connection.sraClaimStale(keys.inbox, keys.inboxAt, now - stalledIntervalMs, now, SWEEP_LIMIT);
    // An entry of one event left by an earlier version is handed over as it is (batchOf reads both).
    for (let i = 0; i + 1 < found.length; i += 2) handOver!.add({ id: found[i]!, data: JSON.parse(found[i + 1]!) as BatchData });
  }

  /**
   * Dead-letters the pending events of a job BullMQ failed, then removes the job; when that
   * fails (Redis away), the job stays in the failed set for the next sweep.
   */
  async function reconcile(batches: BatchWorker, job: Job<BatchData>, error: Error): Promise<void> {
    try {
      if (await batches.failed(job, error)) await job.remove();
    } catch (cause) {
      processing?.onStoreError?.(cause, 'receiver: the events of a failed batch could not be dead-lettered yet; the sweep will');
    }
  }

  /**
   * Failed jobs whose events are not dead-lettered yet (their listener lost Redis); each sweep
   * takes some. A job of one event made by an earlier version is left alone: its failure is that
   * version's dead letter, whose event only the job holds (see the changelog).
   */
  async function reconcileFailed(batches: BatchWorker): Promise<void> {
    // Pages of the failed set (at most FAILED_JOBS_KEPT jobs); one removed meanwhile may shift a job to the next sweep.
    for (let start = 0; start < FAILED_JOBS_KEPT; start += RECONCILE_PAGE) {
      const jobs = await queue.getFailed(start, start + RECONCILE_PAGE - 1);
      for (const job of jobs) if ('events' in job.data) await reconcile(batches, job, new Error(job.failedReason || 'the batch failed'));
      if (jobs.length < RECONCILE_PAGE) return;
    }
  }

  /**
   * Moves a dead letter back to the inbox as a batch of its own, in one step, and hands it over
   * (a job with fresh attempts); false when `id` is not dead-lettered.
   */
  async function retryIfDead(id: string): Promise<boolean> {
    const batchId = newId();
    const batch = await connection.sraRetryDead(keys.dead, keys.deadEvents, keys.deadWhy, keys.inbox, keys.inboxAt, id, batchId, Date.now());
    if (batch === null) return false;
    // Before start() no hand-over exists yet: the inbox entry waits for a sweep.
    handOver?.add({ id: batchId, data: JSON.parse(batch) as BatchData });
    return true;
  }

  function startWorker(p: ProcessingOptions) {
    workerConnection = connect({ maxRetriesPerRequest: null });
    // The worker reconnects by itself; the receiver's logger hears about it.
    workerConnection.on('error', (error) => p.onStoreError?.(error, 'receiver worker: Redis connection error'));
    const batches = createBatchWorker({ store: connection, keys, bucketMs, slots: createHandlerSlots(concurrency), processing: p });
    const run = async (job: Job<BatchData>) => {
      if (!isReady) await ready;
      const under = batches.run(job).finally(() => running.delete(under));
      running.add(under);
      return under;
    };
    // Worker concurrency bounds the jobs under way; the slots bound the handler runs in them.
    worker = new libs.Worker<BatchData>(queueName, run, {
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
      if (job) void reconcile(batches, job, error);
    });
    const runSweep = () =>
      void ready
        .then(() => sweep())
        .then(() => reconcileFailed(batches))
        .catch((error: unknown) => p.onStoreError?.(error, 'receiver: inbox sweep failed'));
    runSweep();
    sweeper = setInterval(runSweep, stalledIntervalMs);
    sweeper.unref();
  }

  /** One round trip for the recordings of one event-loop turn: the record script over the window's buckets. */
  const recordings = createRecordBatch<Recording, RecordResult>({
    maxItems: maxEventsPerJob,
    // One call under way: deliveries that arrive meanwhile go together in the next (fewer
    // round trips and jobs under load, no wait without it).
    maxInFlight: 1,
    async send(items) {
      const receivedAt = Date.now();
      const batchId = newId();
      const buckets = windowOf(receivedAt, Math.round(processing!.windowSeconds * 1000), bucketMs);
      const args: Array<string | number> = [keys.inbox, keys.inboxAt, keys.dead, ...buckets.keys, buckets.expireAt, batchId, receivedAt];
      const batchItems = items.map(({ id, key, event }): BatchItem => ({ id, key, event }));
      items.forEach((item, i) => {
        args.push(tripleField(item.key), item.webhookId === undefined ? '' : webhookIdField(item.webhookId), item.id, JSON.stringify(batchItems[i]));
      });
      // One timer for the batch, from its oldest delivery: none waits longer than recordTimeoutMs in all.
      const left = Math.max(1, recordTimeoutMs - (Date.now() - items[0]!.at));
      const out = await within(connection.sraRecord(3 + buckets.keys.length, ...args), left, 'the recording');
      // The first deliveries are recorded as one batch: one job.
      const events = batchItems.filter((_, i) => out[3 * i + 1] === 0);
      if (events.length > 0) handOver!.add({ id: batchId, data: { receivedAt, events } });
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
      const recording: Recording = { at: Date.now(), key, event, webhookId, id: newId() };
      const { id } = recording;
      try {
        if (!isReady) await within(ready, recordTimeoutMs, 'the connection');
        const [recorded, duplicate, dead] = await recordings.add(recording);
        if (duplicate === 0) return { id, duplicate: false };
        // A dedupe record never suppresses a retry of a failed processing.
        if (dead === 1) await within(retryIfDead(recorded), recordTimeoutMs, 'the dead-letter retry');
        return { id: recorded, duplicate: true };
      } catch (error) {
        if (error instanceof StoreUnavailableError) throw error;
        throw new StoreUnavailableError(`Redis refused the recording: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    },

    async deadLetters(): Promise<DeadLetter[]> {
      // In the order they were dead-lettered, then oldest recording first (a stable sort).
      const ids = await connection.zrange(keys.dead, '0', '-1');
      if (ids.length === 0) return [];
      const [batches, whys] = await Promise.all([connection.hmget(keys.deadEvents, ...ids), connection.hmget(keys.deadWhy, ...ids)]);
      const letters: DeadLetter[] = [];
      ids.forEach((id, i) => {
        // A letter retried between the two reads is gone.
        if (!batches[i] || !whys[i]) return;
        const { receivedAt, events } = JSON.parse(batches[i]) as BatchData;
        const { attempts, error } = JSON.parse(whys[i]) as { attempts: number; error: string };
        letters.push({ id, key: events[0]!.key, event: events[0]!.event, receivedAt, attempts, error });
      });
      return letters.sort((a, b) => a.receivedAt - b.receivedAt);
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
