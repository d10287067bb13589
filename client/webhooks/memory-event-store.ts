/**
 * The single-process receiver store, the embedded default: the same semantics as the Redis
 * store inside one process (record before ack, dedupe window, retries with backoff, dead
 * letters, close waits). Records live in memory: use `createRedisEventStore`
 * (`session-resume-api/webhooks/redis`) for several instances or to survive a restart.
 */
import { checkInteger, checkOption } from '@session-resume-api/runtime/options-error';
import { StoreUnavailableError, type DeadLetter, type OrderedReceiverStore, type RecordOutcome } from './store.js';
import { backgroundInterval } from './memory/background-interval.js';
import { createMemoryProcessing } from './memory/memory-processing.js';
import { createMemoryRecords, newRecordId, type Entry } from './memory/memory-records.js';
import { createSessionMarks } from './memory/session-marks.js';

/** Events processed at the same time by default. */
export const DEFAULT_MEMORY_CONCURRENCY = 1;
/** Events with their payload a memory store holds at most by default (queued, being processed, or dead-lettered). */
export const DEFAULT_MEMORY_MAX_EVENTS = 100_000;
/**
 * Compact records of handled events a memory store holds at most by default: a week at about
 * 140,000 events a day, about 200 bytes each (docs/bounds.md).
 */
export const DEFAULT_MEMORY_MAX_RECORDS = 1_000_000;

/** Options of `createMemoryEventStore`. */
export interface MemoryEventStoreOptions {
  /**
   * Events processed at the same time.
   * @defaultValue {@link DEFAULT_MEMORY_CONCURRENCY} (1)
   */
  concurrency?: number;
  /**
   * Clock in epoch milliseconds, for tests of the dedupe window.
   * @defaultValue `Date.now`
   */
  now?: () => number;
  /**
   * Events held at most with their payload: queued, being processed, or dead-lettered. When full, a
   * new event is answered 503 (the sender retries later) until events are handled or dead letters
   * are retried.
   * @defaultValue {@link DEFAULT_MEMORY_MAX_EVENTS} (100 000)
   */
  maxEvents?: number;
  /**
   * Handled events remembered at most for the rest of their dedupe window, each as a compact record
   * (its recording id and expiry under 128-bit digests of its identities, about 200 bytes). When
   * full, a new event is answered 503 until records leave the window: never a record dropped early.
   * @defaultValue {@link DEFAULT_MEMORY_MAX_RECORDS} (1 000 000)
   */
  maxRecords?: number;
}

/**
 * Creates an in-memory `ReceiverStore` for one process: not shared, not durable (a restart
 * forgets records and queued events). Throws `OptionsError` for a bad option.
 *
 * @param options - all optional; each one's default is on {@link MemoryEventStoreOptions}
 * @example
 * import { createMemoryEventStore, createWebhookReceiver } from 'session-resume-api/webhooks';
 * const receiver = createWebhookReceiver({ store: createMemoryEventStore(), onEvent: (event) => console.log(event) });
 */
export function createMemoryEventStore(options: MemoryEventStoreOptions = {}): OrderedReceiverStore {
  const { concurrency = DEFAULT_MEMORY_CONCURRENCY, now = Date.now, maxEvents = DEFAULT_MEMORY_MAX_EVENTS, maxRecords = DEFAULT_MEMORY_MAX_RECORDS } = options;
  checkInteger('createMemoryEventStore: concurrency', concurrency, { min: 1 });
  checkInteger('createMemoryEventStore: maxEvents', maxEvents, { min: 1 });
  checkInteger('createMemoryEventStore: maxRecords', maxRecords, { min: 1 });
  checkOption(typeof now === 'function', 'createMemoryEventStore: now must be a function returning epoch milliseconds');
  const records = createMemoryRecords(now);
  const marks = createSessionMarks(now);
  const queue = createMemoryProcessing(concurrency, maxEvents, (entry) => records.compact(entry));
  const sweeper = backgroundInterval(() => {
    records.sweep();
    marks.sweep();
  }, 60_000);
  let closed = false;

  return {
    start(processing) {
      if (queue.processing) throw new Error('createMemoryEventStore: start() was called twice; one store serves one receiver');
      queue.start(processing);
    },

    async record(key, event, webhookId, trace): Promise<RecordOutcome> {
      const processing = queue.processing;
      if (closed) throw new StoreUnavailableError('the memory store is closed');
      if (!processing) throw new StoreUnavailableError('the memory store was not started by a receiver');
      sweeper.ensure();
      return recordEntry({ records, queue, maxEvents, maxRecords, t: now(), windowMs: processing.windowSeconds * 1000 }, { key, event, webhookId, trace });
    },

    deadLetters: async (): Promise<DeadLetter[]> => records.deadLetters(),

    async retryDeadLetter(id) {
      const entry = records.byId.get(id);
      if (!entry || entry.state !== 'dead' || closed) return false;
      return queue.push(entry, true) === 'queued';
    },

    advanceSession: async (position, windowSeconds) => marks.advance(position, windowSeconds),

    async close() {
      if (closed) return;
      closed = true;
      sweeper.stop();
      await queue.close();
    },
  };
}

/** What one recording needs of the store: its records, its queue, its bound and the time. */
interface RecordContext {
  records: ReturnType<typeof createMemoryRecords>;
  queue: ReturnType<typeof createMemoryProcessing>;
  maxEvents: number;
  maxRecords: number;
  t: number;
  windowMs: number;
}

/** Records one delivery: a duplicate by either identity answers the first record's id. */
function recordEntry(
  c: RecordContext,
  { key, event, webhookId, trace }: Pick<Entry, 'key' | 'event' | 'trace'> & { webhookId: string | undefined },
): RecordOutcome {
  // A duplicate by either identity: the payload's triple, or the sender's webhook-id.
  const existing = c.records.existing(key, webhookId, c.t);
  if (existing) {
    // A dedupe record never suppresses a retry of a failed processing.
    if ('state' in existing && existing.state === 'dead') c.queue.push(existing, true);
    return { id: existing.id, duplicate: true, ...('state' in existing ? processingOf(existing) : {}) };
  }
  if (c.records.compactRecords >= c.maxRecords) c.records.sweep();
  // Refused, not dropped: the 503 makes the sender retry once events are handled or records have left the window.
  if (c.records.byId.size >= c.maxEvents) {
    throw new StoreUnavailableError(`the memory store holds its limit of ${c.maxEvents} events being processed or dead-lettered (maxEvents); retry later`);
  }
  if (c.records.compactRecords >= c.maxRecords) {
    throw new StoreUnavailableError(
      `the memory store holds its limit of ${c.maxRecords} records of handled events within the dedupe window (maxRecords); retry later`,
    );
  }
  const entry: Entry = {
    id: newRecordId(),
    key,
    event,
    receivedAt: c.t,
    expiresAt: c.t + c.windowMs,
    attemptsMade: 0,
    state: 'queued',
    ...(trace ? { trace } : {}),
  };
  const pushed = c.queue.push(entry);
  if (pushed !== 'queued') throw new StoreUnavailableError(`the memory store's queue refused the event (${pushed})`);
  c.records.add(entry, webhookId);
  return { id: entry.id, duplicate: false, ...processingOf(entry) };
}

/** The entry's processing while it is under way here (for the platform's `waitUntil`). */
function processingOf(entry: Entry): Pick<RecordOutcome, 'processing'> {
  return entry.processing ? { processing: entry.processing.promise } : {};
}
