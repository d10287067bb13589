/**
 * The single-process receiver store, the embedded default: the same semantics as the Redis
 * store inside one process (record before ack, dedupe window, retries with backoff, dead
 * letters, close waits). Records live in memory: use `createRedisStore` for several instances
 * (source spec §6 rule 4) or to survive a restart.
 */
import { randomUUID } from 'node:crypto';
import type { SessionEvent } from '../../spec/types.js';
import {
  StoreUnavailableError,
  type DeadLetter,
  type ProcessingOptions,
  type ReceiverStore,
  type RecordOutcome,
  type RecordedEvent,
} from './store.js';

/** Options of `createMemoryStore`. */
export interface MemoryStoreOptions {
  /** Events processed at the same time (default 1). */
  concurrency?: number;
  /** Clock in epoch milliseconds (default Date.now), for tests of the dedupe window. */
  now?: () => number;
}

interface Entry {
  id: string;
  key: string;
  event: SessionEvent;
  receivedAt: number;
  expiresAt: number;
  attemptsMade: number;
  state: 'queued' | 'active' | 'delayed' | 'done' | 'dead';
  error?: string;
}

/** Creates an in-memory `ReceiverStore` for one process. */
export function createMemoryStore(options: MemoryStoreOptions = {}): ReceiverStore {
  const { concurrency = 1, now = Date.now } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TypeError('createMemoryStore: concurrency must be an integer ≥ 1');
  }
  const byKey = new Map<string, Entry>();
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
      await p.process(recorded);
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
      if (processing) throw new Error('createMemoryStore: start() was called twice; one store serves one receiver');
      processing = options;
      pump();
    },

    async record(key, event): Promise<RecordOutcome> {
      if (closed) throw new StoreUnavailableError('the memory store is closed');
      if (!processing) throw new StoreUnavailableError('the memory store was not started by a receiver');
      const t = now();
      const existing = byKey.get(key);
      if (existing && existing.expiresAt > t) {
        // A dedupe record never suppresses a retry of a failed processing.
        if (existing.state === 'dead') revive(existing);
        return { id: existing.id, duplicate: true };
      }
      if (existing?.state === 'done') byId.delete(existing.id);
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
