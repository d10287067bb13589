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
import type { OutboxEvent } from '../core/outbox-event.js';
import type { AttemptHandler, DeadEvent, DeliveryQueue } from './delivery-queue.js';
import { DEFAULT_CONCURRENCY, DEFAULT_LIST_LIMIT, KEEP_DEAD, KEEP_DELIVERED } from './delivery-queue.js';
import type { DeliveryAttempt, DeliveryInspector, DeliveryRecord, DeliveryState, DeliveryStats } from './delivery-types.js';
import { checkInteger } from '@session-resume-api/runtime/options-error';

/** Options of `createMemoryQueue`. */
export interface MemoryQueueOptions {
  /** The target's origin, recorded with each event. */
  target: string;
  /** Attempts in flight at once, across all events (default 50). */
  concurrency?: number;
  /** Events waiting or under way at most (default 10 000); past it `add` refuses. */
  maxPending?: number;
  /** Delivered events kept with their history (default 1000, each at most 3600 s). */
  keepDelivered?: number;
  /** Dead letters kept (default 10 000). */
  keepDead?: number;
  /** Where close and drops are logged (default: pino named webhook-delivery). */
  logger?: Logger;
}

/** Default bound of the in-process queue: events waiting or under way. */
export const MEMORY_MAX_PENDING = 10_000;

interface Entry {
  id: string;
  record: DeliveryRecord;
  attemptsMade: number;
  queuedAt: number;
  /** When it was delivered or went dead, ms since the epoch. */
  finishedAt?: number;
  reason?: string;
  /** Ends a wait early (set while waiting). */
  wake?: () => void;
  /** Set when close gave up on the event: its late outcome is ignored. */
  abandoned: boolean;
}

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
  const running = new Set<Promise<void>>();
  const slots = createSemaphore(config.concurrency);
  const state = { closing: false, handler: undefined as AttemptHandler | undefined };

  /** One attempt once a slot is free; undefined when there is nothing to do. */
  const attempt = async (entry: Entry) => {
    await slots.acquire();
    try {
      if (entry.abandoned || !state.handler) return undefined;
      entry.record.state = 'delivering';
      return await state.handler({ id: entry.id, payload: entry.record.event, attemptsMade: entry.attemptsMade, queuedAt: entry.queuedAt });
    } finally {
      slots.release();
    }
  };

  const run = async (entry: Entry, delayMs: number): Promise<void> => {
    for (let wait = delayMs; ; ) {
      if (wait > 0 && !state.closing) await waitOrWake(entry, wait);
      const outcome = await attempt(entry);
      if (!outcome || entry.abandoned) return;
      entry.attemptsMade++;
      entry.record.attempts.push(outcome.attempt);
      if (outcome.next.kind === 'delivered') return records.finish(entry, 'delivered');
      if (outcome.next.kind === 'dead') {
        entry.reason = outcome.detail ?? outcome.next.reason;
        return records.finish(entry, 'dead');
      }
      if (state.closing) {
        records.forget(entry);
        logger.error({ webhookId: entry.id, attempt: entry.attemptsMade }, 'webhook attempt failed while the queue closes; dropped, not retried');
        return;
      }
      entry.record.state = 'pending';
      wait = outcome.next.delayMs;
    }
  };

  const launch = (entry: Entry, delayMs: number) => {
    records.live.add(entry);
    // Start on a later turn: the caller's answer never waits for DNS or a connection.
    const task = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => run(entry, delayMs))
      .catch((err: unknown) => logger.error({ webhookId: entry.id, err }, 'webhook delivery defect'))
      .finally(() => running.delete(task));
    running.add(task);
  };

  return {
    durable: false,
    async add(event: OutboxEvent, delayMs: number) {
      if (records.entries.has(event.id)) return;
      if (records.live.size >= config.maxPending) {
        throw new Error(`the in-process queue holds ${config.maxPending} undelivered events (its bound)`);
      }
      const record: DeliveryRecord = { id: event.id, event: event.payload, state: 'pending', target: options.target, attempts: [] };
      const entry: Entry = { id: event.id, record, attemptsMade: 0, queuedAt: Date.now(), abandoned: false };
      records.entries.set(entry.id, entry);
      launch(entry, delayMs);
    },
    start(given) {
      state.handler = given;
    },
    ...records.inspector,
    async replay(id, delayMs) {
      const entry = records.entries.get(id);
      if (!entry || entry.record.state !== 'dead' || state.closing) return false;
      records.done.dead.delete(id);
      entry.attemptsMade = 0;
      entry.record.state = 'pending';
      launch(entry, delayMs);
      return true;
    },
    async close(timeoutMs) {
      state.closing = true;
      await drain(records.live, running, timeoutMs, logger);
    },
  };
}

/** The records of one queue, bounded: live entries, and the newest finished ones per state. */
function createRecords(config: { keepDelivered: number; keepDead: number }) {
  // Insertion order is age order: a finished entry is re-inserted last.
  const entries = new Map<string, Entry>();
  const live = new Set<Entry>();
  // Finished ids in the order they finished: the first is the oldest, dropped past the bound.
  const done = { delivered: new Set<string>(), dead: new Set<string>() };
  /** Newest first. */
  const byState = (state?: DeliveryState) => {
    const ofState = state === 'delivered' || state === 'dead' ? [...done[state]].map((id) => entries.get(id) as Entry) : [...entries.values()];
    return ofState.filter((e) => !state || e.record.state === state).reverse();
  };
  const inspector: DeliveryInspector & { listDead(): Promise<DeadEvent[]> } = {
    async show(id) {
      const entry = entries.get(id);
      return entry ? copyRecord(entry.record) : undefined;
    },
    async list({ state, limit = DEFAULT_LIST_LIMIT } = {}) {
      return byState(state)
        .slice(0, limit)
        .map((e) => copyRecord(e.record));
    },
    async stats() {
      const stats: DeliveryStats = { pending: 0, delivering: 0, delivered: 0, dead: 0 };
      for (const entry of entries.values()) stats[entry.record.state]++;
      return stats;
    },
    async listDead() {
      return byState('dead')
        .reverse()
        .map((e) => deadEvent(e));
    },
  };
  return {
    entries,
    live,
    done,
    inspector,
    forget(entry: Entry) {
      live.delete(entry);
      entries.delete(entry.id);
    },
    finish(entry: Entry, state: 'delivered' | 'dead') {
      live.delete(entry);
      entry.record.state = state;
      entries.delete(entry.id);
      entries.set(entry.id, entry);
      const finishedAt = (entry.finishedAt = Date.now());
      const ids = done[state];
      ids.add(entry.id);
      const keep = state === 'delivered' ? config.keepDelivered : config.keepDead;
      // Past the count, or (delivered only) older than the kept age: the oldest go first.
      for (const oldest of ids) {
        const old = entries.get(oldest);
        const expired = state === 'delivered' && old !== undefined && finishedAt - (old.finishedAt ?? 0) > KEEP_DELIVERED.ageSeconds * 1000;
        if (ids.size <= keep && !expired) break;
        ids.delete(oldest);
        entries.delete(oldest);
      }
    },
  };
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

function deadEvent(entry: Entry): DeadEvent {
  return {
    id: entry.id,
    payload: entry.record.event,
    target: entry.record.target,
    attempts: entry.attemptsMade,
    reason: entry.reason ?? '',
    failedAt: new Date(entry.finishedAt ?? Date.now()).toISOString(),
  };
}

function copyRecord(record: DeliveryRecord): DeliveryRecord {
  return { ...record, attempts: record.attempts.map((a: DeliveryAttempt) => ({ ...a })) };
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

function positive(name: string, value: number): number {
  checkInteger(`createMemoryQueue: ${name}`, value, { min: 1 });
  return value;
}
