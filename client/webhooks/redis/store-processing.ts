/**
 * The Redis store's processing side: hand-over of recorded batches to BullMQ, this instance's worker,
 * the sweep for what a dead instance left, and dead-letter retry. The ack path only hands batches over.
 */
import type { Job, Queue } from 'bullmq';
import type { ProcessingOptions } from '../store.js';
import { createBatchWorker, type BatchData, type BatchWorker } from './batch-worker.js';
import type { RedisConnection } from './connection.js';
import { createHandOver, type HandOver, type HandOverItem } from './hand-over.js';
import { createHandlerSlots } from './handler-slots.js';
import type { RedisLibraries } from './libraries.js';
import { newId } from './recording-id.js';
import type { StoreCommands, StoreKeys } from './store-scripts.js';

/** Inbox entries one sweep hands over at most. */
const SWEEP_LIMIT = 500;
/**
 * ms recorded events wait to be handed over together: one `addBulk` instead of an `add` each, which
 * costs most of the receiver's CPU per event (bench/findings.md). The event is durable in the inbox meanwhile.
 */
const HANDOVER_DELAY_MS = 5;
/** Most jobs (batches) one hand-over carries. */
const HANDOVER_MAX_JOBS = 200;
/**
 * Failed jobs kept at most: a failed job stays only until its pending events are in the store's dead
 * set; the sweep reconciles those that could not be dead-lettered at once.
 */
const FAILED_JOBS_KEPT = 1000;
/** Failed jobs read at a time when a sweep looks for jobs to reconcile. */
const RECONCILE_PAGE = 100;
const JOB_NAME = 'session-events';
/** ms between renewals of the locks of the jobs under way (at most half the lock). */
const LOCK_RENEW_MS = 1000;

/** What `createStoreProcessing` needs. */
export interface StoreProcessingOptions {
  libs: Pick<RedisLibraries, 'Worker'>;
  queue: Queue<BatchData>;
  store: RedisConnection & StoreCommands;
  keys: StoreKeys;
  queueName: string;
  connectWorker(): RedisConnection;
  ready: Promise<void>;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  maxStalledCount: number;
}

/** The hand-over of recorded batches to the queue, with the receiver's retry options on each job. */
function createQueueHandOver(storeOptions: StoreProcessingOptions, processingOptions: ProcessingOptions): HandOver<BatchData> {
  return createHandOver<BatchData>({
    queue: storeOptions.queue,
    store: storeOptions.store,
    keys: storeOptions.keys,
    name: JOB_NAME,
    jobOptions: (id) => ({
      jobId: id,
      attempts: processingOptions.maxAttempts,
      backoff: { type: 'exponential' as const, delay: processingOptions.retryDelayMs },
      // Processed events leave nothing but their dedupe record; dead letters are the store's own.
      removeOnComplete: true,
      removeOnFail: { count: FAILED_JOBS_KEPT },
    }),
    delayMs: HANDOVER_DELAY_MS,
    maxEvents: HANDOVER_MAX_JOBS,
    // Still in the inbox: the next sweep of any instance hands them over.
    onError: (error) => processingOptions.onStoreError?.(error, 'receiver: recorded events could not be queued yet; the inbox sweep will'),
  });
}

/** Dead-letters the pending events of a job BullMQ failed, then removes the job; if that fails, the next sweep does. */
async function reconcile(processingOptions: ProcessingOptions, batches: BatchWorker, job: Job<BatchData>, error: Error): Promise<void> {
  try {
    if (await batches.failed(job, error)) await job.remove();
  } catch (cause) {
    processingOptions.onStoreError?.(cause, 'receiver: the events of a failed batch could not be dead-lettered yet; the sweep will');
  }
}

/**
 * Every `stalledIntervalMs` (and at once): hands over inbox entries older than one interval (their
 * instance died before its hand-over), then reconciles failed jobs whose events are not dead-lettered
 * yet. A one-event job of an earlier version is left alone: its failure is that version's dead letter.
 */
function startSweeper(storeOptions: StoreProcessingOptions, processingOptions: ProcessingOptions, batches: BatchWorker, handOver: HandOver<BatchData>): NodeJS.Timeout {
  const { store, keys, queue } = storeOptions;
  async function sweep(): Promise<void> {
    const found = await store.sraClaimStale(keys.inbox, keys.inboxAt, storeOptions.stalledIntervalMs, SWEEP_LIMIT);
    // An entry of one event left by an earlier version is handed over as it is (batchOf reads both).
    for (let i = 0; i + 1 < found.length; i += 2) handOver.add({ id: found[i]!, data: JSON.parse(found[i + 1]!) as BatchData });
    // Pages of the failed set (at most FAILED_JOBS_KEPT jobs); one removed meanwhile may shift a job to the next sweep.
    for (let start = 0; start < FAILED_JOBS_KEPT; start += RECONCILE_PAGE) {
      const jobs = await queue.getFailed(start, start + RECONCILE_PAGE - 1);
      for (const job of jobs) if ('events' in job.data) await reconcile(processingOptions, batches, job, new Error(job.failedReason || 'the batch failed'));
      if (jobs.length < RECONCILE_PAGE) return;
    }
  }
  const runSweep = () => void storeOptions.ready.then(sweep).catch((error: unknown) => processingOptions.onStoreError?.(error, 'receiver: inbox sweep failed'));
  runSweep();
  const timer = setInterval(runSweep, storeOptions.stalledIntervalMs);
  timer.unref();
  return timer;
}

/** This instance's BullMQ worker over the batch step; `running` holds the batch runs under way. */
function startWorker(storeOptions: StoreProcessingOptions, processingOptions: ProcessingOptions, bucketMs: number, running: Set<Promise<void>>) {
  const connection = storeOptions.connectWorker();
  connection.on('error', (error) => processingOptions.onStoreError?.(error, 'receiver worker: Redis connection error'));
  const batches = createBatchWorker({ store: storeOptions.store, keys: storeOptions.keys, bucketMs, slots: createHandlerSlots(storeOptions.concurrency), processing: processingOptions });
  const run = async (job: Job<BatchData>) => {
    await storeOptions.ready;
    const under = batches.run(job).finally(() => running.delete(under));
    running.add(under);
    return under;
  };
  // Worker concurrency bounds the jobs under way; the slots bound the handler runs in them.
  const { concurrency, lockDurationMs: lockDuration, stalledIntervalMs: stalledInterval, maxStalledCount } = storeOptions;
  // Locks renewed every second (BullMQ's default is half the lock): an instance that stalls or loses
  // Redis keeps its jobs for the lock less one second, so its pending processed markers land before
  // another instance reruns those events.
  const lockRenewTime = Math.min(LOCK_RENEW_MS, lockDuration / 2);
  const options = { connection, prefix: storeOptions.keys.bullPrefix, concurrency, lockDuration, lockRenewTime, stalledInterval, maxStalledCount };
  const worker = new storeOptions.libs.Worker<BatchData>(storeOptions.queueName, run, options);
  worker.on('error', (error) => processingOptions.onStoreError?.(error, 'receiver worker error'));
  // Also emitted for a job that stalled more than maxStalledCount times.
  worker.on('failed', (job, error) => void (job && reconcile(processingOptions, batches, job, error)));
  return { worker, connection, batches };
}

/**
 * `start` begins the hand-over, and the worker and sweep when `runWorker`.
 * @example
 * const processing = createStoreProcessing({ libs, queue, store, keys, queueName, connectWorker, ready, ... });
 * processing.start(p, bucketMs, true);
 */
export function createStoreProcessing(options: StoreProcessingOptions) {
  const { store, keys } = options;
  let handOver: HandOver<BatchData> | undefined;
  let worker: ReturnType<typeof startWorker> | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  /** Handler runs under way in this instance; close() waits for them. */
  const running = new Set<Promise<void>>();

  return {
    start(processingOptions: ProcessingOptions, bucketMs: number, runWorker: boolean) {
      handOver = createQueueHandOver(options, processingOptions);
      if (!runWorker) return;
      worker = startWorker(options, processingOptions, bucketMs, running);
      sweeper = startSweeper(options, processingOptions, worker.batches, handOver);
    },

    /** Queues a recorded batch (soon, with others); before `start` it waits in the inbox for a sweep. */
    handOver(item: HandOverItem<BatchData>) {
      handOver?.add(item);
    },

    /** Moves a dead letter back to the inbox as its own batch and hands it over; false when not dead-lettered. */
    async retryIfDead(id: string): Promise<boolean> {
      const batchId = newId();
      const batch = await store.sraRetryDead(keys.dead, keys.deadEvents, keys.deadWhy, keys.inbox, keys.inboxAt, id, batchId);
      if (batch === null) return false;
      handOver?.add({ id: batchId, data: JSON.parse(batch) as BatchData });
      return true;
    },

    /** Stops the sweep, finishes the hand-overs and the handler runs under way. */
    async close() {
      clearInterval(sweeper);
      handOver?.flush();
      await handOver?.settled();
      // Worker.close waits for the jobs under way; queued jobs stay in Redis. Without a connection it
      // would wait for Redis (BullMQ 6) and could finish nothing: it closes at once, and another
      // instance's stalled check recovers the job (its processed marker prevents a rerun).
      await worker?.worker.close(worker.connection.status !== 'ready');
      await Promise.allSettled([...running]);
      worker?.connection.disconnect();
    },
  };
}
