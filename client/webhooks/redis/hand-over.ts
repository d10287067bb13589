/**
 * The hand-over from the inbox to the work queue. Events recorded within a few milliseconds
 * become BullMQ jobs together through `Queue.addBulk` (one MULTI for the lot instead of an
 * `add` each); then the store's own script takes them out of the inbox. The inbox entry is the
 * durable record until its job exists, so a crash between the two steps leaves it for the
 * sweep, whose `addBulk` adds nothing for a job that still exists (the job id is the
 * recording id) and whose job for an event processed meanwhile runs nothing (the worker checks
 * the processed marker first).
 */
import type { JobsOptions, Queue } from 'bullmq';
import type { StoreCommands, StoreKeys } from './store-scripts.js';

/** One recorded event on its way to the queue: its recording id (the job id) and data. */
export interface HandOverItem<T> {
  id: string;
  data: T;
}

/** What `createHandOver` needs. */
export interface HandOverOptions<T> {
  queue: Queue<T>;
  /** The store's own connection, with its scripts defined. */
  store: Pick<StoreCommands, 'sraHandedOver'>;
  keys: StoreKeys;
  /** BullMQ job name. */
  name: string;
  /** Job options of one event (its job id is its recording id). */
  jobOptions(id: string): JobsOptions;
  /** Milliseconds the first event of a batch waits for others. */
  delayMs: number;
  /** Most events in one batch; a full batch goes at once. */
  maxEvents: number;
  /** A batch could not be queued: its events stay in the inbox for the sweep. */
  onError(error: unknown): void;
}

/** Batches recorded events into the queue; `settled()` waits for every batch under way. */
export interface HandOver<T> {
  add(item: HandOverItem<T>): void;
  /** Sends the waiting batch now (on close). */
  flush(): void;
  settled(): Promise<void>;
}

/**
 * Creates the batching hand-over.
 *
 * @example
 * const handOver = createHandOver({ queue, store: connection, keys, name: 'session-event', jobOptions, delayMs: 5, maxEvents: 200, onError });
 * handOver.add({ id, data });
 */
export function createHandOver<T>(options: HandOverOptions<T>): HandOver<T> {
  const { delayMs, maxEvents, onError } = options;
  let batch: Array<HandOverItem<T>> = [];
  let timer: NodeJS.Timeout | undefined;
  const under = new Set<Promise<void>>();

  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    const items = batch;
    batch = [];
    if (items.length === 0) return;
    const run = queueBatch(options, items)
      .catch(onError)
      .finally(() => under.delete(run));
    under.add(run);
  }

  return {
    add(item) {
      batch.push(item);
      if (batch.length >= maxEvents) flush();
      else if (batch.length === 1) timer = setTimeout(flush, delayMs);
    },
    flush,
    settled: async () => {
      await Promise.allSettled([...under]);
    },
  };
}

/** `Queue.addBulk` (a repeated job id adds nothing), then the inbox entries go. */
async function queueBatch<T>(options: HandOverOptions<T>, items: Array<HandOverItem<T>>): Promise<void> {
  const { queue, store, keys, name, jobOptions } = options;
  // BullMQ types a job's data through its own generics; the name is the one we always give.
  await queue.addBulk(items.map(({ id, data }) => ({ name, data, opts: jobOptions(id) })) as Parameters<Queue<T>['addBulk']>[0]);
  await store.sraHandedOver(keys.inbox, keys.inboxAt, ...items.map((item) => item.id));
}
