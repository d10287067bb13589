/**
 * The processing side of the memory store, on the shared in-process queue
 * (runtime/memory-queue.ts): what one attempt is (the handler, a retry after the handler
 * backoff, the dead letter), and the promise that settles when an entry's processing ends, for
 * the platform's `waitUntil`.
 */
import { createMemoryQueue, type MemoryQueuePush } from '@session-resume-api/runtime/memory-queue';
import { handlerRetryDelayMs } from '../handler-backoff.js';
import { runHandler, type ProcessingOptions, type RecordedEvent } from '../store.js';
import type { Entry } from './memory-records.js';

/** Runs recorded entries, `concurrency` at a time, once `start` gave it the processing; holds at most `maxEntries`. */
export function createMemoryProcessing(concurrency: number, maxEntries: number) {
  let processing: ProcessingOptions | undefined;
  const queue = createMemoryQueue<Entry>({
    concurrency,
    maxItems: maxEntries,
    onDefect(entry, error) {
      // Kept as a dead letter, so that the event can still be retried.
      entry.state = 'dead';
      entry.error = error instanceof Error ? error.message : String(error);
      settle(entry);
      processing?.onStoreError?.(error, 'memory store: processing an event failed; it is kept as a dead letter');
    },
  });
  return {
    get processing() {
      return processing;
    },
    start(processingOptions: ProcessingOptions) {
      processing = processingOptions;
      queue.start((entry) => attempt(entry, processingOptions, () => queue.closing));
    },
    /** Queues an entry (new, or a dead letter again with fresh attempts); it runs on a later turn. */
    push(entry: Entry, fresh = false): MemoryQueuePush {
      const pushed = queue.push(entry);
      if (pushed !== 'queued') return pushed;
      entry.state = 'queued';
      entry.processing ??= pending();
      if (fresh) {
        entry.attemptsMade = 0;
        entry.error = undefined;
      }
      return pushed;
    },
    /**
     * Scheduled retries of this process are abandoned (memory does not outlive it); queued
     * events still run once and attempts under way finish before it resolves.
     */
    async close() {
      await queue.close({ delayed: 'drop', onDrop: settle });
    },
  };
}

/** One attempt of an entry's handler; a failure is retried after the handler backoff or ends as a dead letter. */
async function attempt(entry: Entry, processingOptions: ProcessingOptions, closing: () => boolean): Promise<number | undefined> {
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
    await runHandler(processingOptions, recorded);
    entry.state = 'done';
    settle(entry);
    return undefined;
  } catch (error) {
    entry.error = error instanceof Error ? error.message : String(error);
    // A failure while closing is final: no retry is scheduled once the store closes.
    const final = entry.attemptsMade >= processingOptions.maxAttempts || closing();
    entry.state = final ? 'dead' : 'delayed';
    processingOptions.onFailure(error, recorded, final);
    if (!final) return handlerRetryDelayMs(processingOptions, entry.attemptsMade);
    settle(entry);
    return undefined;
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
