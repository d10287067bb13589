/**
 * How the in-process queue runs its events: each event in a loop of its own (wait, attempt,
 * record the outcome), at most `concurrency` attempts in flight across all of them, and at close
 * one final attempt for every waiting event before the unfinished ones are dropped.
 */
import type { Logger } from 'pino';
import type { AttemptHandler, AttemptOutcome, HeldAttempt, QueuedEvent } from './delivery-queue.js';
import type { Entry, Records } from './memory-queue-records.js';

/** What the runner shares with its queue. */
export interface RunnerOptions {
  records: Records;
  /** Attempts in flight at once, across all events. */
  concurrency: number;
  logger: Logger;
}

/** Runs the events of one queue. */
export interface Runner {
  /** Starts an event's loop on a later turn, after `delayMs`. */
  launch(entry: Entry, delayMs: number): void;
  /** Sets the handler every attempt goes through (attempts wait for it). */
  start(handler: AttemptHandler): void;
  readonly closing: boolean;
  /** No new work; waiting events make one final attempt; what is left after `timeoutMs` is dropped. */
  close(timeoutMs: number): Promise<void>;
}

/** Creates the runner of one in-process queue. */
export function createRunner({ records, concurrency, logger }: RunnerOptions): Runner {
  const running = new Set<Promise<void>>();
  const slots = createSemaphore(concurrency);
  const state = { closing: false, handler: undefined as AttemptHandler | undefined };

  /** One attempt once a slot is free; undefined when there is nothing to do. */
  const attempt = async (entry: Entry) => {
    await slots.acquire();
    try {
      if (entry.abandoned || !state.handler) return undefined;
      entry.record.state = 'delivering';
      return await state.handler(queuedEvent(entry));
    } finally {
      slots.release();
    }
  };

  const run = async (entry: Entry, delayMs: number): Promise<void> => {
    for (let wait = delayMs; ; ) {
      if (wait > 0 && !state.closing) await waitOrWake(entry, wait);
      const outcome = await attempt(entry);
      if (!outcome || entry.abandoned) return;
      const next = settle(records, entry, outcome);
      if (next === undefined) return;
      if (state.closing) return dropWhileClosing(records, entry, logger, 'held' in outcome ? 'held by the endpoint circuit' : 'attempt failed');
      entry.record.state = 'pending';
      wait = next;
    }
  };

  return {
    launch(entry, delayMs) {
      records.live.add(entry);
      // Start on a later turn: the caller's answer never waits for DNS or a connection.
      const task = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => run(entry, delayMs))
        .catch((err: unknown) => logger.error({ webhookId: entry.id, err }, 'webhook delivery defect'))
        .finally(() => running.delete(task));
      running.add(task);
    },
    start(handler) {
      state.handler = handler;
    },
    get closing() {
      return state.closing;
    },
    async close(timeoutMs) {
      state.closing = true;
      await drain(records.live, running, timeoutMs, logger);
    },
  };
}

/** Records what an attempt decided: the wait before the next one, or undefined when the event is finished. */
function settle(records: Records, entry: Entry, outcome: AttemptOutcome | HeldAttempt): number | undefined {
  // Held by the endpoint's circuit: no attempt was made, none is counted.
  if ('held' in outcome) return outcome.held.delayMs;
  entry.attemptsMade++;
  entry.record.attempts.push(outcome.attempt);
  if (outcome.next.kind === 'retry') return outcome.next.delayMs;
  if (outcome.next.kind === 'dead') entry.reason = outcome.detail ?? outcome.next.reason;
  records.finish(entry, outcome.next.kind);
  return undefined;
}

/** An attempt failed (or was held) while the queue closes: the event is not retried. */
function dropWhileClosing(records: Records, entry: Entry, logger: Logger, what: string): void {
  records.forget(entry);
  logger.error({ webhookId: entry.id, attempt: entry.attemptsMade }, `webhook ${what} while the queue closes; dropped, not retried`);
}

/**
 * Closing: events waiting for their next attempt give up the wait and make one final attempt
 * now; what is unfinished after `timeoutMs` is abandoned and logged as dropped.
 */
async function drain(live: Set<Entry>, running: Set<Promise<void>>, timeoutMs: number, logger: Logger): Promise<void> {
  for (const entry of live) entry.wake?.();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const outcome = await Promise.race([Promise.allSettled([...running]).then(() => 'done' as const), timedOut]);
  clearTimeout(timer);
  if (outcome !== 'timeout') return;
  for (const entry of live) {
    entry.abandoned = true;
    const { event } = entry.record;
    logger.error(
      { webhookId: entry.id, event: event.event, sessionId: event.session.id, attempt: entry.attemptsMade },
      `webhook still pending after ${timeoutMs} ms close timeout; dropped`,
    );
  }
}

function waitOrWake(entry: Entry, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      entry.wake = undefined;
      resolve();
    };
    const timer = setTimeout(done, ms);
    entry.wake = done;
  });
}

/** A counting semaphore: a finished attempt hands its slot straight to the next waiter. */
function createSemaphore(size: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    acquire: () => (active < size ? (active++, Promise.resolve()) : new Promise<void>((resolve) => waiting.push(resolve))),
    release() {
      const next = waiting.shift();
      if (next) next();
      else active--;
    },
  };
}

/** The entry as an attempt sees it. */
function queuedEvent(entry: Entry): QueuedEvent {
  const { id, attemptsMade, queuedAt, trace } = entry;
  return { id, payload: entry.record.event, attemptsMade, queuedAt, ...(trace ? { trace } : {}) };
}
