/**
 * The single-process receiver store, the embedded default: the same semantics as the Redis
 * store inside one process (record before ack, dedupe window, retries with backoff, dead
 * letters, close waits). Records live in memory: use `createRedisEventStore`
 * (`session-resume-api/webhooks/redis`) for several instances or to survive a restart.
 */
import { randomUUID } from 'node:crypto';
import { checkInteger, checkOption } from '@session-resume-api/runtime/options-error';
import type { ReceivedEvent } from './tolerant-event.js';
import {
  StoreUnavailableError,
  type DeadLetter,
  type ProcessingOptions,
  type ReceiverStore,
  type RecordOutcome,
  type RecordedEvent,
  runHandler,
} from './store.js';

/** Events processed at the same time by default. */
export const DEFAULT_MEMORY_CONCURRENCY = 1;
/** Events a memory store holds at most by default (queued, in the dedupe window, or dead-lettered). */
export const DEFAULT_MEMORY_MAX_EVENTS = 100_000;

/** Options of `createMemoryEventStore`. */
export interface MemoryEventStoreOptions {
  /** Events processed at the same time (default `DEFAULT_MEMORY_CONCURRENCY`, 1). */
  concurrency?: number;
  /** Clock in epoch milliseconds (default Date.now), for tests of the dedupe window. */
  now?: () => number;
  /**
   * Events held at most: queued, within the dedupe window, or dead-lettered (default
   * `DEFAULT_MEMORY_MAX_EVENTS`, 100 000). When full, a new event is answered 503 (the sender
   * retries later) until records leave the window or dead letters are handled.
   */
  maxEvents?: number;
}

interface Entry {
  id: string;
  key: string;
  event: ReceivedEvent;
  receivedAt: number;
  expiresAt: number;
  attemptsMade: number;
  state: 'queued' | 'active' | 'delayed' | 'done' | 'dead';
  error?: string;
}

/**
 * Creates an in-memory `ReceiverStore` for one process: not shared, not durable (a restart
 * forgets records and queued events). Throws `OptionsError` for a bad option.
 *
 * @param options - all optional
 * @param [options.concurrency=1] - events processed at the same time
 * @param [options.now=Date.now] - clock in epoch milliseconds
 * @param [options.maxEvents=100000] - events held at most; beyond it new events get 503
 * @example
 * import { createMemoryEventStore, createWebhookReceiver } from 'session-resume-api/webhooks';
 * const receiver = createWebhookReceiver({ store: createMemoryEventStore(), onEvent: (event) => console.log(event) });
 */
export function createMemoryEventStore(options: MemoryEventStoreOptions = {}): ReceiverStore {
  const { concurrency = DEFAULT_MEMORY_CONCURRENCY, now = Date.now, maxEvents = DEFAULT_MEMORY_MAX_EVENTS } = options;
  checkInteger('createMemoryEventStore: concurrency', concurrency, { min: 1 });
  checkInteger('createMemoryEventStore: maxEvents', maxEvents, { min: 1 });
  checkOption(typeof now === 'function', 'createMemoryEventStore: now must be a function returning epoch milliseconds');
  const byKey = new Map<string, Entry>();
  // webhook-id (Standard Webhooks) → the entry first recorded under it.
  const byWebhookId = new Map<string, Entry>();
  const byId = new Map<string, Entry>();
  const queue: Entry[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const active = new Set<Promise<void>>();
  let processing: ProcessingOptions | undefined;
  let closed = false;
  let idle: (() => void) | undefined;

  const sweep = () => {
    const t = now();
    for (const [key, entry] of byKey) {
      if (entry.expiresAt <= t && (entry.state === 'done' || entry.state === 'dead')) {
        byKey.delete(key);
        if (entry.state === 'done') byId.delete(entry.id);
      }
    }
    for (const [webhookId, entry] of byWebhookId) if (entry.expiresAt <= t) byWebhookId.delete(webhookId);
  };
  const sweeper = setInterval(sweep, 60_000);
  sweeper.unref();

  const pump = () => {
    if (!processing) return;
    while (active.size < concurrency && queue.length > 0) {
      const entry = queue.shift()!;
      const run = attempt(entry, processing).finally(() => {
        active.delete(run);
        pump();
      });
      active.add(run);
    }
    if (active.size === 0 && queue.length === 0) idle?.();
  };

  async function attempt(entry: Entry, p: ProcessingOptions): Promise<void> {
    entry.state = 'active';
    entry.attemptsMade += 1;
    const recorded: RecordedEvent = {
      id: entry.id,
      key: entry.key,
      event: entry.event,
      receivedAt: entry.receivedAt,
      attempt: entry.attemptsMade,
    };
    try {
      await runHandler(p, recorded);
      entry.state = 'done';
    } catch (error) {
      entry.error = error instanceof Error ? error.message : String(error);
      const final = entry.attemptsMade >= p.maxAttempts || closed;
      if (final) {
        entry.state = 'dead';
      } else {
        // Retry with exponential backoff: retryDelayMs, 2×, 4×, ...
        entry.state = 'delayed';
        const timer = setTimeout(() => {
          timers.delete(timer);
          entry.state = 'queued';
          queue.push(entry);
          pump();
        }, p.retryDelayMs * 2 ** (entry.attemptsMade - 1));
        timers.add(timer);
      }
      p.onFailure(error, recorded, final);
    }
  }

  return {
    start(options) {
      if (processing) throw new Error('createMemoryEventStore: start() was called twice; one store serves one receiver');
      processing = options;
      pump();
    },

    async record(key, event, webhookId): Promise<RecordOutcome> {
      if (closed) throw new StoreUnavailableError('the memory store is closed');
      if (!processing) throw new StoreUnavailableError('the memory store was not started by a receiver');
      const t = now();
      const live = (entry: Entry | undefined) => (entry && entry.expiresAt > t ? entry : undefined);
      // A duplicate by either identity: the payload's triple, or the sender's webhook-id.
      const existing = live(byKey.get(key)) ?? (webhookId === undefined ? undefined : live(byWebhookId.get(webhookId)));
      if (existing) {
        // A dedupe record never suppresses a retry of a failed processing.
        if (existing.state === 'dead') revive(existing);
        return { id: existing.id, duplicate: true };
      }
      const stale = byKey.get(key);
      if (stale?.state === 'done') byId.delete(stale.id);
      if (byId.size >= maxEvents) sweep();
      if (byId.size >= maxEvents) {
        // Refused, not dropped: the 503 makes the sender retry once records have left the window.
        throw new StoreUnavailableError(`the memory store holds its limit of ${maxEvents} events (maxEvents); retry later`);
      }
      const entry: Entry = {
        id: randomUUID(),
        key,
        event,
        receivedAt: t,
        expiresAt: t + processing.windowSeconds * 1000,
        attemptsMade: 0,
        state: 'queued',
      };
      byKey.set(key, entry);
      if (webhookId !== undefined) byWebhookId.set(webhookId, entry);
      byId.set(entry.id, entry);
      queue.push(entry);
      // Processing starts on a later tick: the 200 never waits for onEvent.
      setImmediate(pump);
      return { id: entry.id, duplicate: false };
    },

    async deadLetters(): Promise<DeadLetter[]> {
      return [...byId.values()]
        .filter((e) => e.state === 'dead')
        .sort((a, b) => a.receivedAt - b.receivedAt)
        .map((e) => ({ id: e.id, key: e.key, event: e.event, receivedAt: e.receivedAt, attempts: e.attemptsMade, error: e.error ?? '' }));
    },

    async retryDeadLetter(id) {
      const entry = byId.get(id);
      if (!entry || entry.state !== 'dead' || closed) return false;
      revive(entry);
      return true;
    },

    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweeper);
      // Scheduled retries of this process are abandoned: memory does not outlive it.
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      // Queued events still run once and attempts under way finish before close resolves.
      if (active.size > 0 || queue.length > 0) {
        await new Promise<void>((resolve) => {
          idle = resolve;
          pump();
        });
      }
    },
  };

  function revive(entry: Entry) {
    entry.state = 'queued';
    entry.attemptsMade = 0;
    entry.error = undefined;
    queue.push(entry);
    setImmediate(pump);
  }
}
