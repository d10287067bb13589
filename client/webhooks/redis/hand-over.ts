/**
 * The hand-over from the inbox to the work queue. Events recorded within a few milliseconds
 * become BullMQ jobs together, in one MULTI that also takes them out of the inbox: one write and
 * one transaction for the lot instead of an `add` and an inbox removal each. The add and the
 * removal are one atomic step, so an event is always either in the inbox or a job (or done),
 * and the inbox sweep can never queue a processed event a second time.
 */
import type { Job as JobType, JobsOptions, Queue } from 'bullmq';
import type { StoreCommands, StoreKeys } from './store-scripts.js';

/** One recorded event on its way to the queue: its recording id (the job id) and data. */
export interface HandOverItem<T> {
  id: string;
  data: T;
}

/** What `createHandOver` needs. */
export interface HandOverOptions<T> {
  queue: Queue<T>;
  /** BullMQ's `Job` class (from the loaded library). */
  Job: typeof JobType;
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
 * Creates the batching hand-over. The job id is the recording id, so a repeat (a sweep racing
 * a slow hand-over) adds nothing.
 *
 * @example
 * const handOver = createHandOver({ queue, Job, keys, name: 'session-event', jobOptions, delayMs: 5, maxEvents: 200, onError });
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

/** One MULTI: every job's add (BullMQ's own script, as `Queue.addBulk` runs it), then the inbox removal. */
async function queueBatch<T>(options: HandOverOptions<T>, items: Array<HandOverItem<T>>): Promise<void> {
  const { queue, Job, keys, name, jobOptions } = options;
  // BullMQ's client (its proxy over the queue's connection, where the store scripts are defined
  // too) gives a MULTI with both kinds of script.
  const multi = (await (queue as unknown as { client: Promise<{ multi(): { exec(): Promise<Array<[Error | null, unknown]> | null> } }> }).client).multi();
  for (const { id, data } of items) {
    // Queued synchronously, as Queue.addBulk does; its outcome is read from exec() below.
    new Job<T>(queue, name, data, jobOptions(id), id).addJob(multi as never, { parentDependenciesKey: '' } as never).catch(() => {});
  }
  (multi as unknown as StoreCommands).sraHandedOver(keys.inbox, keys.inboxAt, keys.jobKey, ...items.map((item) => item.id));
  const results = await multi.exec();
  if (!results) throw new Error('the hand-over transaction was discarded');
  const failed = results.find(([error]) => error);
  if (failed) throw failed[0];
}
