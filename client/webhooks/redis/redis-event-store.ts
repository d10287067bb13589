/**
 * The shared receiver store on Redis (one node or a Cluster). The ack path is one round trip shared
 * by one event-loop turn's deliveries (record-batch.ts): a Lua script decides first delivery or
 * duplicate (payload identity and `webhook-id`) and writes dedupe records and the event into an inbox
 * atomically, so the 200 follows a durable record. A call carries its answer's deadline by Redis's
 * clock: run late, it changes nothing, so a 503 is never followed by a record.
 *
 * A call's first deliveries are one batch: an inbox entry, then after the answer one BullMQ job,
 * queued with others via `Queue.addBulk`. Completed jobs are removed; what stays per event is its
 * dedupe record (about 110 bytes) until the window ends. A batch a dead instance left in the inbox
 * is found by any instance's sweep. The worker skips events marked processed and dead-letters one by one.
 * BullMQ and ioredis are used through their documented APIs only.
 */
import type { Queue as QueueType } from 'bullmq';
import { openPrimaries } from '@session-resume-api/runtime/redis-connection';
import { StoreUnavailableError, type DeadLetter, type ProcessingOptions, type OrderedReceiverStore, type RecordOutcome } from '../store.js';
import type { BatchData } from './batch-worker.js';
import type { RedisConnection } from './connection.js';
import { createSessionOrder } from './session-order.js';
import { loadRedisLibraries } from './libraries.js';
import { createRecorder, type Recording } from './recorder.js';
import { newId } from './recording-id.js';
import { createRedisClock, timeMs } from './redis-clock.js';
import { checkOptions, withDefaults, type RedisEventStoreOptions } from './store-options.js';
import { createStoreProcessing } from './store-processing.js';
import { BUCKETS_PER_WINDOW, storeKeys, withStoreCommands, type StoreKeys } from './store-scripts.js';
import { rejectAfterMs } from './reject-after.js';

// Top-level await: importing this subpath without bullmq or ioredis installed fails here,
// with a message that names the install command.
const libs = await loadRedisLibraries();

/** Entries kept in BullMQ's event stream of the queue (nothing here reads it). */
const EVENTS_MAX_LEN = 100;

/** The store's own connection (recording, its scripts), BullMQ's queue connection, and their readiness with Redis's time. */
function openConnections(
  connect: ReturnType<typeof checkOptions>,
  keys: StoreKeys,
  queueName: string,
  recordTimeoutMs: number,
  onQueueError: (error: Error) => void,
) {
  // Request path: fail fast while Redis is down or hung, so the answer is a quick 503, never a 200
  // for an unrecorded event. No auto-pipelining: a turn's deliveries share one command already.
  // The scripts are defined on this connection only (BullMQ's stay off the ack path).
  const store = withStoreCommands(connect({ commandTimeoutMs: recordTimeoutMs }));
  // BullMQ's queue connection (hand-over and reconcile, off the answer path) in the role BullMQ asks
  // for; on a cluster the queue prefix is the hash tag, so its keys share one slot.
  const queueConnection = connect({ role: 'blocking' });
  const queue: QueueType<BatchData> = new libs.Queue<BatchData>(queueName, {
    connection: queueConnection,
    prefix: keys.bullPrefix,
    streams: { events: { maxLen: EVENTS_MAX_LEN } },
  });
  queue.on('error', onQueueError);
  const clock = createRedisClock();
  // Without an offline queue a command sent while a node's connection is opening fails: open every primary first.
  const connected = new Promise<void>((resolve) => (store.status === 'ready' ? resolve() : store.once('ready', () => resolve()))).then(() =>
    openPrimaries(store),
  );
  // Ready: connected, BullMQ ready, and Redis's time read (the record path states deadlines in it).
  const ready = Promise.all([queue.waitUntilReady(), connected.then(async () => clock.observe(timeMs(await store.sraTime(keys.inbox))))]).then(() => undefined);
  // Every reader of `ready` gets its failure: a recording (a 503 with the reason) and the inbox
  // sweep (reported through the receiver's logger). This one keeps a failure before any reader
  // awaits it from ending the process as an unhandled rejection.
  ready.catch(() => {});
  return { store, queueConnection, queue, clock, ready };
}

/** The dead letters, in the order they were dead-lettered, then oldest recording first (a stable sort). */
async function readDeadLetters(store: RedisConnection, keys: StoreKeys): Promise<DeadLetter[]> {
  const ids = await store.zrange(keys.dead, '0', '-1');
  if (ids.length === 0) return [];
  const [batches, whys] = await Promise.all([store.hmget(keys.deadEvents, ...ids), store.hmget(keys.deadWhy, ...ids)]);
  const letters: DeadLetter[] = [];
  ids.forEach((id, i) => {
    // A letter retried between the two reads is gone.
    if (!batches[i] || !whys[i]) return;
    const { receivedAt, events } = JSON.parse(batches[i]) as BatchData;
    const { attempts, error } = JSON.parse(whys[i]) as { attempts: number; error: string };
    letters.push({ id, key: events[0]!.key, event: events[0]!.event, receivedAt, attempts, error });
  });
  return letters.sort((a, b) => a.receivedAt - b.receivedAt);
}

/**
 * Creates a Redis-backed `ReceiverStore` shared by every instance with the same prefix and queue,
 * on one node or a Cluster. Throws `OptionsError` for a bad option.
 * @param options - exactly one of `url`, `client` or `clusterNodes`; the rest optional, each with its `@defaultValue` on `RedisEventStoreBaseOptions`
 * @example
 * const receiver = createWebhookReceiver({
 *   store: createRedisEventStore({ url: 'redis://127.0.0.1:6379' }), // or { clusterNodes: ['10.0.0.5:6379', ...] }
 *   onEvent: async (event) => console.log(event.event, event.session.id),
 * });
 */
export function createRedisEventStore(options: RedisEventStoreOptions): OrderedReceiverStore {
  const connect = checkOptions(options ?? {}, libs);
  const { prefix, queueName, recordTimeoutMs, process: runWorker, ...settings } = withDefaults(options);
  const keys = storeKeys(prefix, queueName);
  // Reported through the receiver's logger once started; a Redis still down then is reported again.
  let report: ProcessingOptions['onStoreError'];
  const { store, queueConnection, queue, clock, ready } = openConnections(connect, keys, queueName, recordTimeoutMs, (error) =>
    report?.(error, 'receiver queue: Redis connection error'),
  );
  let isReady = false;
  // A failed `ready` is reported where it is awaited (a recording, the sweep): this reader only marks success.
  ready.then(
    () => (isReady = true),
    () => {},
  );
  const connectWorker = () => connect({ role: 'blocking' });
  const processing = createStoreProcessing({ ...settings, libs, queue, store, keys, queueName, connectWorker, ready });
  const advanceSession = createSessionOrder(store, keys);
  let started: { windowMs: number; bucketMs: number } | undefined;
  let closed = false;
  const recorder = createRecorder({
    store,
    keys,
    clock,
    recordTimeoutMs,
    maxEvents: settings.maxEventsPerJob,
    skewMs: settings.clockSkewMs,
    window: () => started!,
    onBatch: (batch) => processing.handOver(batch),
  });

  return {
    start(processingOptions: ProcessingOptions) {
      if (started) throw new Error('createRedisEventStore: start() was called twice; one store serves one receiver');
      const windowMs = Math.round(processingOptions.windowSeconds * 1000);
      started = { windowMs, bucketMs: Math.max(1, Math.ceil(windowMs / BUCKETS_PER_WINDOW)) };
      report = processingOptions.onStoreError;
      processing.start(processingOptions, started.bucketMs, runWorker);
    },
    async record(key, event, webhookId, trace): Promise<RecordOutcome> {
      if (closed) throw new StoreUnavailableError('the Redis store is closed');
      if (!started) throw new StoreUnavailableError('the Redis store was not started by a receiver');
      const recording: Recording = { at: Date.now(), key, event, webhookId, id: newId(), trace };
      return recordEvent({ recorder, processing, recordTimeoutMs, ready: isReady ? undefined : ready }, recording);
    },
    deadLetters: () => readDeadLetters(store, keys),
    advanceSession,
    retryDeadLetter: (id) => processing.retryIfDead(id),
    async close() {
      if (closed) return;
      closed = true;
      await processing.close();
      await queue.close();
      store.disconnect();
      queueConnection.disconnect();
    },
  };
}

interface RecordContext {
  recorder: ReturnType<typeof createRecorder>;
  processing: ReturnType<typeof createStoreProcessing>;
  recordTimeoutMs: number;
  ready: Promise<unknown> | undefined;
}

/** Records one delivery before its deadline; anything Redis or the deadline refuses is a StoreUnavailableError. */
async function recordEvent(context: RecordContext, recording: Recording): Promise<RecordOutcome> {
  try {
    if (context.ready) await rejectAfterMs(context.ready, context.recordTimeoutMs, 'the connection');
    const [recorded, duplicate, dead] = await context.recorder.add(recording);
    if (duplicate === 0) return { id: recording.id, duplicate: false };
    // A dedupe record never suppresses a retry of a failed processing.
    if (dead === 1) await rejectAfterMs(context.processing.retryIfDead(recorded), context.recordTimeoutMs, 'the dead-letter retry');
    return { id: recorded, duplicate: true };
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    throw new StoreUnavailableError(`Redis refused the recording: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
