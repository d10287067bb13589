/**
 * The worker's step for one BullMQ job: a batch of the events one record call recorded, so BullMQ
 * handles one job per batch. Each event keeps its guarantees: it runs only while unprocessed and not
 * dead-lettered, and is marked as soon as its handler succeeded; any failure fails the job, whose
 * retry runs only the rest; after the last attempt the failing events are dead-lettered one by one.
 */
import type { Job } from 'bullmq';
import { runHandler, type ProcessingOptions, type RecordedEvent } from '../store.js';
import type { ReceivedEvent } from '../tolerant-event.js';
import type { TraceContext } from '@session-resume-api/runtime/trace-context';
import type { HandlerSlots } from './handler-slots.js';
import { createRecordBatch } from './record-batch.js';
import { bucketKey, tripleField, type StoreCommands, type StoreKeys } from './store-scripts.js';

/** One event of a batch: its recording id, dedupe key and payload. */
export interface BatchItem {
  id: string;
  key: string;
  event: ReceivedEvent;
  trace?: TraceContext;
}

/** A job's data and an inbox entry: the events recorded by one call, and when. */
export interface BatchData {
  receivedAt: number;
  events: BatchItem[];
}

/** A job or inbox entry of one event, as earlier versions of the store made them (the job id is the recording id). */
interface SingleEventData {
  key: string;
  event: ReceivedEvent;
  receivedAt: number;
}

/** A job of one event from an earlier version (rolling upgrade) is a batch of that one event. */
export function batchOf(job: Job<BatchData | SingleEventData>): BatchData {
  const data = job.data;
  if ('events' in data) return data;
  return { receivedAt: data.receivedAt, events: [{ id: job.id!, key: data.key, event: data.event }] };
}

/** A batch attempt in which some events failed; each was reported to `onFailure` already. */
export class BatchAttemptError extends Error {
  override name = 'BatchAttemptError';
}

/** What `createBatchWorker` needs. */
export interface BatchWorkerOptions {
  store: Pick<StoreCommands, 'sraPending' | 'sraProcessed' | 'sraDead'>;
  keys: StoreKeys;
  /** ms per dedupe bucket (known once the receiver started the store). */
  bucketMs: number;
  /** The bound on handler runs at the same time, shared by every job of the instance. */
  slots: HandlerSlots;
  processing: ProcessingOptions;
}

/** One failed event of a batch on its way to the dead set. */
interface Failure {
  item: BatchItem;
  recorded: RecordedEvent;
  error: unknown;
}

/** A processed-marker step (see the store's PROCESSED script): an event done, or a batch done. */
type Mark = { bucket: string; field: string; id: string } | { batchId: string };

/** The batch step of one instance's worker (see `createBatchWorker`). */
export type BatchWorker = ReturnType<typeof createBatchWorker>;

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** What the worker's parts share: the options, and `mark` (processed events and done batches, batched per turn). */
interface WorkerContext extends BatchWorkerOptions {
  mark(m: Mark): Promise<void>;
}

/** Marks processed events and done batches in one script call per turn. */
function createMarker({ store, keys, processing }: BatchWorkerOptions): (m: Mark) => Promise<void> {
  const marks = createRecordBatch<Mark, undefined>({
    // One batch at most per job under way, and its events: the turn's markers, bounded by those.
    maxItems: 1000,
    async send(items) {
      const buckets: string[] = [];
      const argv: Array<string | number> = [];
      for (const m of items) {
        if ('batchId' in m) {
          argv.push(0, '', m.batchId);
          continue;
        }
        let k = buckets.indexOf(m.bucket);
        if (k < 0) k = buckets.push(m.bucket) - 1;
        argv.push(6 + k, m.field, m.id);
      }
      await store.sraProcessed(5 + buckets.length, keys.inbox, keys.inboxAt, keys.dead, keys.deadEvents, keys.deadWhy, ...buckets, ...argv);
      return items.map(() => undefined);
    },
  });
  // A failure to mark leaves at most a second run of a handler that ran, never a lost event.
  return (m: Mark) =>
    marks.add(m).then(
      () => undefined,
      (error: unknown) => processing.onStoreError?.(error, 'receiver: processed events could not be marked so'),
    );
}

/** 1 per event of `data` to run, 0 per event processed or dead-lettered already. */
function pendingOf({ store, keys, bucketMs }: WorkerContext, data: BatchData, fields: string[]): Promise<number[]> {
  return store.sraPending(bucketKey(keys, data.receivedAt, bucketMs), keys.dead, ...data.events.flatMap((e, i) => [fields[i]!, e.id]));
}

/** The events of `failures` go to the dead set each on its own, the batch leaves the inbox; then `onFailure(final)`. */
async function deadLetter({ store, keys, processing }: WorkerContext, batchId: string, receivedAt: number, failures: Failure[]): Promise<void> {
  const argv: Array<string | number> = [Date.now(), batchId];
  for (const { item, recorded, error } of failures) {
    argv.push(
      item.id,
      JSON.stringify({ receivedAt, events: [item] } satisfies BatchData),
      JSON.stringify({ attempts: recorded.attempt, error: message(error) }),
    );
  }
  await store.sraDead(keys.dead, keys.deadEvents, keys.deadWhy, keys.inbox, keys.inboxAt, ...argv);
  for (const { recorded, error } of failures) processing.onFailure(error, recorded, true);
}

/** Runs the batch's pending events (within the shared slots); the failed ones, each with its error. */
async function runEvents(context: WorkerContext, job: Job<BatchData>, data: BatchData, attempt: number, final: boolean): Promise<Failure[]> {
  const { keys, bucketMs, slots, processing, mark } = context;
  const { receivedAt, events } = data;
  const bucket = bucketKey(keys, receivedAt, bucketMs);
  const fields = events.map((e) => tripleField(e.key));
  const pending = await pendingOf(context, data, fields);
  const failures: Failure[] = [];
  const marked: Array<Promise<void>> = [];
  await Promise.all(
    events.map(async (item, i) => {
      if (pending[i] !== 1) return;
      const recorded: RecordedEvent = { id: item.id, key: item.key, event: item.event, receivedAt, attempt, ...(item.trace ? { trace: item.trace } : {}) };
      try {
        await slots.run(() => runHandler(processing, recorded));
      } catch (error) {
        failures.push({ item, recorded, error });
        if (!final) processing.onFailure(error, recorded, false);
        return;
      }
      marked.push(mark({ bucket, field: fields[i]!, id: item.id }));
    }),
  );
  // Every event done: what a late hand-over left of the batch in the inbox goes (same call as the last markers).
  if (failures.length === 0) marked.push(mark({ batchId: job.id! }));
  await Promise.all(marked);
  return failures;
}

/**
 * `run(job)` is the Worker's processor; `failed(job, error)` dead-letters the unprocessed events of a
 * job that failed for another reason (store error, stall) after its last attempt. Idempotent, so a
 * failed job can be reconciled again until it succeeds.
 * @example
 * const batches = createBatchWorker({ store: connection, keys, bucketMs, slots, processing });
 * const worker = new Worker(queueName, batches.run, { ... });
 */
export function createBatchWorker(options: BatchWorkerOptions) {
  const context: WorkerContext = { ...options, mark: createMarker(options) };
  const processing = options.processing;
  return {
    async run(job: Job<BatchData>): Promise<void> {
      const attempt = job.attemptsMade + 1;
      const final = attempt >= (job.opts.attempts ?? 1);
      const data = batchOf(job);
      const failures = await runEvents(context, job, data, attempt, final);
      if (failures.length === 0) return;
      if (!final)
        throw new BatchAttemptError(
          `${failures.length} of ${data.events.length} events of the batch failed (first: ${message(failures[0]!.error)}); they will be retried`,
        );
      await deadLetter(context, job.id!, data.receivedAt, failures);
    },

    /** Resolves true once the failed job's pending events are dead-lettered (the job may go), false while it has attempts left. */
    async failed(job: Job<BatchData>, error: Error): Promise<boolean> {
      if (error.name === BatchAttemptError.name) return false;
      const final = job.attemptsMade >= (job.opts.attempts ?? 1) || job.finishedOn !== undefined;
      if (!final) {
        processing.onStoreError?.(error, 'receiver: a batch of events could not be processed; it will be retried');
        return false;
      }
      const data = batchOf(job);
      const { receivedAt, events } = data;
      const pending = await pendingOf(
        context,
        data,
        events.map((e) => tripleField(e.key)),
      );
      const attempts = Math.max(1, job.attemptsMade);
      const rest = events.filter((_, i) => pending[i] === 1);
      await deadLetter(
        context,
        job.id!,
        receivedAt,
        rest.map((item) => ({ item, recorded: { ...item, receivedAt, attempt: attempts }, error })),
      );
      return true;
    },
  };
}
