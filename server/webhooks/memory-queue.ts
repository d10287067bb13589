/**
 * The in-process delivery queue of the memory store: NOT durable (pending events, history and
 * dead letters live in this process only) and bounded: at most `maxPending` events waiting or
 * under way (past it an event is refused and logged), the last `keepDelivered` delivered events
 * (each for at most an hour) and the last `keepDead` dead letters with their attempts.
 *
 * At close: no new work; an event waiting for its next attempt gives up the wait and gets one
 * final attempt now; an attempt that fails while closing is not retried; whatever is still
 * unfinished when the close timeout passes is logged as dropped (error level).
 */
import type { Logger } from 'pino';
import { pino } from 'pino';
import type { WebhookMessage } from '../core/webhook-message.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { DEFAULT_CONCURRENCY, KEEP_DEAD, KEEP_DELIVERED } from './delivery-queue.js';
import type { DeliveryRecord } from './delivery-types.js';
import { createRecords, type Entry } from './memory-queue-records.js';
import { createRunner } from './memory-queue-runner.js';
import { checkInteger } from '@session-resume-api/runtime/options-error';

/** The in-process queue's bounds, which `createMemoryDelivery` takes as they are. */
export interface MemoryQueueSettings {
  /**
   * Attempts in flight at once, across all events.
   * @defaultValue {@link DEFAULT_CONCURRENCY} (50)
   */
  concurrency?: number;
  /**
   * Events waiting or under way at most; past it `add` refuses.
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

/** Options of `createMemoryQueue`. */
export interface MemoryQueueOptions extends MemoryQueueSettings {
  /** The target's origin, recorded with each event. */
  target: string;
  /**
   * Where close and drops are logged.
   * @defaultValue a pino logger named `webhook-delivery`
   */
  logger?: Logger;
}

/** Default bound of the in-process queue: events waiting or under way. */
export const MEMORY_MAX_PENDING = 10_000;

/**
 * Creates the in-process queue.
 * @example const engine = createDeliveryEngine({ queue: createMemoryQueue({ target: 'https://hooks.example.com' }), target: { url } });
 */
export function createMemoryQueue(options: MemoryQueueOptions): DeliveryQueue {
  const config = {
    concurrency: positive('concurrency', options.concurrency ?? DEFAULT_CONCURRENCY),
    maxPending: positive('maxPending', options.maxPending ?? MEMORY_MAX_PENDING),
    keepDelivered: positive('keepDelivered', options.keepDelivered ?? KEEP_DELIVERED.count),
    keepDead: positive('keepDead', options.keepDead ?? KEEP_DEAD),
  };
  const logger = options.logger ?? pino({ name: 'webhook-delivery' });
  const records = createRecords(config);
  const runner = createRunner({ records, concurrency: config.concurrency, logger });
  return {
    durable: false,
    async add(event: WebhookMessage, delayMs: number) {
      if (records.entries.has(event.id)) return;
      if (records.live.size >= config.maxPending) {
        throw new Error(`the in-process queue holds ${config.maxPending} undelivered events (its bound)`);
      }
      const record: DeliveryRecord = { id: event.id, event: event.payload, state: 'pending', target: options.target, attempts: [] };
      const entry: Entry = { id: event.id, record, attemptsMade: 0, queuedAt: Date.now(), abandoned: false, ...(event.trace ? { trace: event.trace } : {}) };
      records.entries.set(entry.id, entry);
      runner.launch(entry, delayMs);
    },
    start(given) {
      runner.start(given);
    },
    ...records.inspector,
    async replay(id, delayMs) {
      const entry = records.entries.get(id);
      if (!entry || entry.record.state !== 'dead' || runner.closing) return false;
      records.done.dead.delete(id);
      entry.attemptsMade = 0;
      entry.record.state = 'pending';
      runner.launch(entry, delayMs);
      return true;
    },
    async listRetrying() {
      return [...records.live].flatMap((entry) => {
        const last = entry.record.state === 'pending' ? entry.record.attempts.at(-1) : undefined;
        return last ? [{ id: entry.id, payload: entry.record.event, failedAt: last.at }] : [];
      });
    },
    async promote(id) {
      const entry = records.entries.get(id);
      if (!entry?.wake || entry.record.state !== 'pending') return false;
      entry.wake();
      return true;
    },
    close(timeoutMs) {
      return runner.close(timeoutMs);
    },
  };
}

function positive(name: string, value: number): number {
  checkInteger(`createMemoryQueue: ${name}`, value, { min: 1 });
  return value;
}
