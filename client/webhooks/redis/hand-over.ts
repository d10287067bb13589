/**
 * Inbox to work queue: events recorded within a few ms become jobs through one `Queue.addBulk`, then
 * leave the inbox. A crash in between leaves them for the sweep, whose `addBulk` adds nothing for an
 * existing job id and whose job for an already processed event runs nothing.
 */
import type { JobsOptions, Queue } from 'bullmq';
import type { StoreCommands, StoreKeys } from './store-scripts.js';

/** Its recording id is the job id. */
export interface HandOverItem<T> {
  id: string;
  data: T;
}

/** What `createHandOver` needs. */
export interface HandOverOptions<T> {
  queue: Queue<T>;
  store: Pick<StoreCommands, 'sraHandedOver'>;
  keys: StoreKeys;
  name: string;
  /** Job options of one event (its job id is its recording id). */
  jobOptions(id: string): JobsOptions;
  /** ms the first event of a batch waits for others. */
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
 * @example createHandOver({ queue, store: connection, keys, name: 'session-event', jobOptions, delayMs: 5, maxEvents: 200, onError }).add({ id, data });
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
  await queue.addBulk(items.map(({ id, data }) => ({ name, data, opts: jobOptions(id) })) as Parameters<Queue<T>['addBulk']>[0]);
  await store.sraHandedOver(keys.inbox, keys.inboxAt, ...items.map((item) => item.id));
}
