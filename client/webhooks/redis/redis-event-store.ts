/**
 * The shared receiver store on Redis (a single node or a Redis Cluster). The ack path is one
 * round trip, shared by the deliveries of one event-loop turn (record-batch.ts): a Lua script
 * of ours (store-scripts.ts) decides first delivery or duplicate, by the payload's identity and
 * by `webhook-id`, and for a first delivery writes the dedupe records and the event into an
 * inbox in the same atomic step, so the 200 follows a durable record. A call carries its
 * answer's deadline, judged by Redis's clock (recorder.ts): run late, it changes nothing, so a
 * 503 is never followed by a record of that delivery. The first deliveries of
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
import type { Queue as QueueType } from 'bullmq';
import { openPrimaries } from '@session-resume-api/runtime/redis-connection';
import { StoreUnavailableError, type DeadLetter, type ProcessingOptions, type ReceiverStore, type RecordOutcome } from '../store.js';
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
import { within } from './within.js';

// Top-level await: importing this subpath without bullmq or ioredis installed fails here,
// with a message that names the install command.
const libs = await loadRedisLibraries();

/** Entries kept in BullMQ's event stream of the queue (nothing here reads it). */
const EVENTS_MAX_LEN = 100;

/**
 * The store's connections: its own (recording, its scripts), BullMQ's queue connection, and a
 * promise of both being ready with Redis's time read once.
 */
function openConnections(connect: ReturnType<typeof checkOptions>, keys: StoreKeys, queueName: string, recordTimeoutMs: number, onQueueError: (error: Error) => void) {
  // Request path: fail fast while Redis is down (no offline queue) or hung (command timeout),
  // so the answer is a quick 503 and never a 200 for an unrecorded event. No auto-pipelining:
  // the deliveries of one turn share one command already (record-batch.ts), and a pipeline
  // per turn around it only added its own cost. The store's own connection: its scripts are
  // defined here and nowhere else (BullMQ's fifty stay off the ack path).
  // Connection errors are reported through the failing commands (the factory's default).
  const store = withStoreCommands(connect({ commandTimeoutMs: recordTimeoutMs }));
  // BullMQ's queue connection (the hand-over and the reconcile, both off the answer path: an
  // event stays in the inbox until its job exists) takes the role BullMQ asks for, as on the
  // server. BullMQ on a cluster needs its keys in one slot, so the queue prefix is the hash tag.
  const queueConnection = connect({ role: 'blocking' });
  const queue: QueueType<BatchData> = new libs.Queue<BatchData>(queueName, { connection: queueConnection, prefix: keys.bullPrefix, streams: { events: { maxLen: EVENTS_MAX_LEN } } });
  queue.on('error', onQueueError);
  const clock = createRedisClock();
  // Without an offline queue, a command sent while a cluster node's connection is still opening
  // fails: the record path starts once every primary's connection is open.
  const connected = new Promise<void>((resolve) => (store.status === 'ready' ? resolve() : store.once('ready', () => resolve()))).then(() => openPrimaries(store));
  // Ready: connected, BullMQ ready, and Redis's time read (the record path states deadlines in it).
  const ready = Promise.all([queue.waitUntilReady(), connected.then(async () => clock.observe(timeMs(await store.sraTime(keys.inbox))))]).then(() => undefined);
  // Not an unhandled rejection: a failure reaches the caller of `record`, which awaits `ready`.
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
 * Creates a Redis-backed `ReceiverStore` shared by every instance with the same prefix and
 * queue, on one node or a Redis Cluster (one code path). Throws `OptionsError` for a bad option.
 *
 * @param options - `url`, `client` or `clusterNodes`; the rest optional, each with its `@defaultValue` on `RedisEventStoreOptions`
 * @example
 * import { createWebhookReceiver } from 'session-resume-api/webhooks';
 * import { createRedisEventStore } from 'session-resume-api/webhooks/redis';
 * const receiver = createWebhookReceiver({
 *   store: createRedisEventStore({ url: 'redis://127.0.0.1:6379' }), // or { clusterNodes: ['10.0.0.5:6379', ...] }
 *   onEvent: async (event) => console.log(event.event, event.session.id),
 * });
 */
export function createRedisEventStore(options: RedisEventStoreOptions): ReceiverStore {
  const connect = checkOptions(options ?? {}, libs);
  const { prefix, queueName, recordTimeoutMs, process: runWorker, ...o } = withDefaults(options);
  const keys = storeKeys(prefix, queueName);
  // Reported through the receiver's logger once a receiver started the store; the connection
  // keeps retrying, so a Redis still down by then is reported again.
  let report: ProcessingOptions['onStoreError'];
  const { store, queueConnection, queue, clock, ready } = openConnections(connect, keys, queueName, recordTimeoutMs, (error) =>
    report?.(error, 'receiver queue: Redis connection error'),
  );
  let isReady = false;
  void ready.then(() => (isReady = true));
  const connectWorker = () => connect({ role: 'blocking' });
  const processing = createStoreProcessing({ ...o, libs, queue, store, keys, queueName, connectWorker, ready });
  const advanceSession = createSessionOrder(store, keys);
  let started: { windowMs: number; bucketMs: number } | undefined;
  let closed = false;
  const recorder = createRecorder({
    store,
    keys,
    clock,
    recordTimeoutMs,
    maxEvents: o.maxEventsPerJob,
    window: () => started!,
    onBatch: (batch) => processing.handOver(batch),
  });

  return {
    start(p: ProcessingOptions) {
      if (started) throw new Error('createRedisEventStore: start() was called twice; one store serves one receiver');
      const windowMs = Math.round(p.windowSeconds * 1000);
      started = { windowMs, bucketMs: Math.max(1, Math.ceil(windowMs / BUCKETS_PER_WINDOW)) };
      report = p.onStoreError;
      processing.start(p, started.bucketMs, runWorker);
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

/** What one recording needs: the recorder, the processing (for a dead letter's retry) and the deadline. */
interface RecordContext {
  recorder: ReturnType<typeof createRecorder>;
  processing: ReturnType<typeof createStoreProcessing>;
  recordTimeoutMs: number;
  /** The connection's readiness while it is still pending. */
  ready: Promise<unknown> | undefined;
}

/** Records one delivery before its deadline; anything Redis or the deadline refuses is a StoreUnavailableError. */
async function recordEvent(c: RecordContext, recording: Recording): Promise<RecordOutcome> {
  try {
    if (c.ready) await within(c.ready, c.recordTimeoutMs, 'the connection');
    const [recorded, duplicate, dead] = await c.recorder.add(recording);
    if (duplicate === 0) return { id: recording.id, duplicate: false };
    // A dedupe record never suppresses a retry of a failed processing.
    if (dead === 1) await within(c.processing.retryIfDead(recorded), c.recordTimeoutMs, 'the dead-letter retry');
    return { id: recorded, duplicate: true };
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    throw new StoreUnavailableError(`Redis refused the recording: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
