/**
 * The processing side of the memory store: a queue run with bounded concurrency, retries with
 * exponential backoff, dead letters, and a close that waits for the attempts under way.
 */
import { exponentialDelayMs } from '@session-resume-api/runtime/backoff';
import { runHandler, type ProcessingOptions, type RecordedEvent } from '../store.js';
import { later } from './later.js';
import type { Entry } from './memory-records.js';

/** Each handler retry waits twice the one before, as BullMQ's `exponential` backoff does on the Redis store. */
const HANDLER_BACKOFF_FACTOR = 2;

/** Runs queued entries, `concurrency` at a time, once `start` gave it the processing. */
export function createMemoryQueue(concurrency: number) {
  const queue: Entry[] = [];
  const active = new Set<Promise<void>>();
  let processing: ProcessingOptions | undefined;
  let closed = false;
  let idle: (() => void) | undefined;
  const retries = createRetryTimers((entry) => {
    queue.push(entry);
    pump();
  });
  const context: AttemptContext = { closed: () => closed, retryLater: retries.retryLater };

  const pump = () => {
    if (!processing) return;
    while (active.size < concurrency && queue.length > 0) {
      const run = attempt(queue.shift()!, processing, context).finally(() => {
        active.delete(run);
        pump();
      });
      active.add(run);
    }
    if (active.size === 0 && queue.length === 0) idle?.();
  };

  return {
    get processing() {
      return processing;
    },
    start(p: ProcessingOptions) {
      processing = p;
      pump();
    },
    /** Queues an entry (new, or a dead letter again with fresh attempts); it runs on a later turn. */
    push(entry: Entry, fresh = false) {
      entry.state = 'queued';
      entry.processing ??= pending();
      if (fresh) {
        entry.attemptsMade = 0;
        entry.error = undefined;
      }
      queue.push(entry);
      // Processing starts on a later turn: the 200 never waits for onEvent.
      later(pump);
    },
    async close() {
      closed = true;
      // Scheduled retries of this process are abandoned: memory does not outlive it.
      for (const entry of retries.cancel()) settle(entry);
      // Queued events still run once and attempts under way finish before close resolves.
      if (active.size === 0 && queue.length === 0) return;
      await new Promise<void>((resolve) => {
        idle = resolve;
        pump();
      });
    },
  };
}

/** What an attempt needs from its queue. */
interface AttemptContext {
  /** Whether the queue is closing: a failure then is final. */
  closed(): boolean;
  retryLater(entry: Entry, delayMs: number): void;
}

/** One attempt of an entry's handler; a failure is retried with backoff or ends as a dead letter. */
async function attempt(entry: Entry, p: ProcessingOptions, queue: AttemptContext): Promise<void> {
  entry.state = 'active';
  entry.attemptsMade += 1;
  const recorded: RecordedEvent = {
    id: entry.id,
    key: entry.key,
    event: entry.event,
    receivedAt: entry.receivedAt,
    attempt: entry.attemptsMade,
    ...(entry.trace ? { trace: entry.trace } : {}),
  };
  try {
    await runHandler(p, recorded);
    entry.state = 'done';
    settle(entry);
  } catch (error) {
    entry.error = error instanceof Error ? error.message : String(error);
    const final = entry.attemptsMade >= p.maxAttempts || queue.closed();
    if (final) entry.state = 'dead';
    else queue.retryLater(entry, exponentialDelayMs(entry.attemptsMade, p.retryDelayMs, HANDLER_BACKOFF_FACTOR));
    p.onFailure(error, recorded, final);
    if (final) settle(entry);
  }
}

/** A promise for the end of an entry's processing, and its resolve. */
function pending(): NonNullable<Entry['processing']> {
  let settle!: () => void;
  const promise = new Promise<void>((resolve) => (settle = resolve));
  return { promise, settle };
}

/** Ends the entry's processing here: done, dead, or abandoned by a close. */
function settle(entry: Entry): void {
  entry.processing?.settle();
  entry.processing = undefined;
}

/** The timers of scheduled retries: each puts its entry back in the queue when it fires. */
function createRetryTimers(requeue: (entry: Entry) => void) {
  const timers = new Map<ReturnType<typeof setTimeout>, Entry>();
  return {
    retryLater(entry: Entry, delayMs: number) {
      entry.state = 'delayed';
      const timer = setTimeout(() => {
        timers.delete(timer);
        entry.state = 'queued';
        requeue(entry);
      }, delayMs);
      timers.set(timer, entry);
    },
    /** Cancels every scheduled retry; returns their entries. */
    cancel(): Entry[] {
      for (const timer of timers.keys()) clearTimeout(timer);
      const entries = [...timers.values()];
      timers.clear();
      return entries;
    },
  };
}
