/**
 * The delivery queue of memory delivery, on the shared in-process queue
 * (runtime/memory-queue.ts): NOT durable (pending events, history and dead letters live in
 * this process only) and bounded: at most `maxPending` events waiting or under way (past it an
 * event is refused and logged), the last `keepDelivered` delivered events (each for at most an
 * hour) and the last `keepDead` dead letters with their attempts. Its own part is what one run
 * of an event is: an attempt through the engine's handler, its outcome recorded.
 *
 * At close: no new work; an event waiting for its next attempt gives up the wait and gets one
 * final attempt now; an attempt that fails while closing is not retried; whatever is still
 * unfinished when the close timeout passes is logged as dropped (error level).
 */
import type { Logger } from 'pino';
import { pino } from 'pino';
import { createMemoryQueue, type MemoryQueue, type MemoryQueuePush } from '@session-resume-api/runtime/memory-queue';
import { checkInteger } from '@session-resume-api/runtime/options-error';
import type { WebhookMessage } from '../core/webhook-message.js';
import type { AttemptHandler, AttemptOutcome, DeliveryQueue, HeldAttempt, QueuedEvent } from './delivery-queue.js';
import { DEFAULT_CONCURRENCY, KEEP_DEAD, KEEP_DELIVERED } from './delivery-queue.js';
import { createRecords, type Entry, type Records } from './memory-delivery-records.js';

/** The bounds of memory delivery's queue, which `createMemoryDelivery` takes as they are. */
export interface MemoryDeliveryQueueSettings {
  /**
   * Attempts in flight at once, across all events.
   * @defaultValue {@link DEFAULT_CONCURRENCY} (50)
   */
  concurrency?: number;
  /**
   * Events waiting or under way at most; past it `add` and `replay` refuse.
   * @defaultValue {@link MEMORY_MAX_PENDING} (10 000)
   */
  maxPending?: number;
  /**
   * Delivered events kept with their history.
   * @defaultValue {@link KEEP_DELIVERED}`.count` (1000, each at most 3600 s)
   */
  keepDelivered?: number;
  /**
   * Dead letters kept.
   * @defaultValue {@link KEEP_DEAD} (10 000)
   */
  keepDead?: number;
}

/** Options of `createMemoryDeliveryQueue`. */
export interface MemoryDeliveryQueueOptions extends MemoryDeliveryQueueSettings {
  /** The target's origin, recorded with each event. */
  target: string;
  /**
   * Where close and drops are logged.
   * @defaultValue a pino logger named `webhook-delivery`
   */
  logger?: Logger;
}

/** Default bound of memory delivery: events waiting or under way. */
export const MEMORY_MAX_PENDING = 10_000;

/**
 * Creates the delivery queue of memory delivery.
 * @example const engine = createDeliveryEngine({ queue: createMemoryDeliveryQueue({ target: 'https://hooks.example.com' }), target: { url } });
 */
export function createMemoryDeliveryQueue(options: MemoryDeliveryQueueOptions): DeliveryQueue {
  const config = {
    concurrency: positive('concurrency', options.concurrency ?? DEFAULT_CONCURRENCY),
    maxPending: positive('maxPending', options.maxPending ?? MEMORY_MAX_PENDING),
    keepDelivered: positive('keepDelivered', options.keepDelivered ?? KEEP_DELIVERED.count),
    keepDead: positive('keepDead', options.keepDead ?? KEEP_DEAD),
  };
  const logger = options.logger ?? pino({ name: 'webhook-delivery' });
  const records = createRecords(config);
  const queue = createMemoryQueue<Entry>({
    concurrency: config.concurrency,
    maxItems: config.maxPending,
    onDefect: (entry, err) => logger.error({ webhookId: entry.id, err }, 'webhook delivery defect'),
  });
  return {
    durable: false,
    async add(event: WebhookMessage, delayMs: number) {
      if (records.entries.has(event.id)) return;
      const entry = newEntry(event, options.target);
      const pushed = queue.push(entry, delayMs);
      if (pushed !== 'queued') throw new Error(refusal(pushed, config.maxPending));
      records.entries.set(entry.id, entry);
    },
    start(handler) {
      queue.start((entry) => attempt({ records, queue, logger }, handler, entry));
    },
    ...records.inspector,
    async replay(id, delayMs) {
      const entry = records.entries.get(id);
      if (!entry || entry.record.state !== 'dead' || queue.push(entry, delayMs) !== 'queued') return false;
      records.done.dead.delete(id);
      entry.attemptsMade = 0;
      entry.record.state = 'pending';
      return true;
    },
    async listRetrying() {
      return [...queue.items()].flatMap((entry) => {
        const last = entry.record.state === 'pending' ? entry.record.attempts.at(-1) : undefined;
        return last ? [{ id: entry.id, payload: entry.record.event, failedAt: last.at }] : [];
      });
    },
    async promote(id) {
      const entry = records.entries.get(id);
      return entry?.record.state === 'pending' && queue.runNow(entry);
    },
    async close(timeoutMs) {
      // Events waiting for their next attempt make one final attempt now.
      for (const entry of await queue.close({ delayed: 'run', timeoutMs })) dropAtTimeout(entry, timeoutMs, logger);
    },
  };
}

function positive(name: string, value: number): number {
  checkInteger(`createMemoryDeliveryQueue: ${name}`, value, { min: 1 });
  return value;
}

function newEntry(event: WebhookMessage, target: string): Entry {
  const record = { id: event.id, event: event.payload, state: 'pending' as const, target, attempts: [] };
  return { id: event.id, record, attemptsMade: 0, queuedAt: Date.now(), abandoned: false, ...(event.trace ? { trace: event.trace } : {}) };
}

function refusal(pushed: Exclude<MemoryQueuePush, 'queued'>, maxPending: number): string {
  return pushed === 'full' ? `the in-process queue holds ${maxPending} undelivered events (its bound)` : `the in-process queue refused the event (${pushed})`;
}

/** What one run of an event shares with its queue. */
interface RunContext {
  records: Records;
  queue: MemoryQueue<Entry>;
  logger: Logger;
}

/** One attempt of an event and its outcome recorded: the wait before the next one, or undefined when it is finished. */
async function attempt({ records, queue, logger }: RunContext, handler: AttemptHandler, entry: Entry): Promise<number | undefined> {
  entry.record.state = 'delivering';
  const outcome = await handler(queuedEvent(entry));
  if (entry.abandoned) return undefined;
  const next = settle(records, entry, outcome);
  if (next === undefined) return undefined;
  if (queue.closing) {
    // An attempt failed (or was held) while the queue closes: the event is not retried.
    records.forget(entry);
    const what = 'held' in outcome ? 'held by the endpoint circuit' : 'attempt failed';
    logger.error({ webhookId: entry.id, attempt: entry.attemptsMade }, `webhook ${what} while the queue closes; dropped, not retried`);
    return undefined;
  }
  entry.record.state = 'pending';
  return next;
}

/** Records what an attempt decided: the wait before the next one, or undefined when the event is finished. */
function settle(records: Records, entry: Entry, outcome: AttemptOutcome | HeldAttempt): number | undefined {
  // Held by the endpoint's circuit: no attempt was made, none is counted.
  if ('held' in outcome) return outcome.held.delayMs;
  // Nor when its backlog was full: the event goes to the dead letters with an entry of its own.
  if (outcome.attempt.result !== 'held_overflow') entry.attemptsMade++;
  entry.record.attempts.push(outcome.attempt);
  if (outcome.next.kind === 'retry') return outcome.next.delayMs;
  if (outcome.next.kind === 'dead') entry.reason = outcome.detail ?? outcome.next.reason;
  records.finish(entry, outcome.next.kind);
  return undefined;
}

/** Unfinished when the close timeout passed: its late outcome is ignored, and it is logged as dropped. */
function dropAtTimeout(entry: Entry, timeoutMs: number, logger: Logger): void {
  entry.abandoned = true;
  const { event } = entry.record;
  logger.error(
    { webhookId: entry.id, event: event.event, sessionId: event.session.id, attempt: entry.attemptsMade },
    `webhook still pending after ${timeoutMs} ms close timeout; dropped`,
  );
}

/** The entry as an attempt sees it. */
function queuedEvent(entry: Entry): QueuedEvent {
  const { id, attemptsMade, queuedAt, trace } = entry;
  return { id, payload: entry.record.event, attemptsMade, queuedAt, ...(trace ? { trace } : {}) };
}
