/**
 * A user's `onError` or a store's `onHandlerRun` hook that throws never stops processing, and is
 * never ignored in silence: it reaches the receiver's logger or the store's error report.
 */
import { describe, expect, it } from 'vitest';
import { failureReporter } from '../../client/webhooks/processing.js';
import { resolveReceiverOptions } from '../../client/webhooks/receiver-options.js';
import { createMemoryEventStore } from '../../client/webhooks/memory-event-store.js';
import { runHandler, type ProcessingOptions, type RecordedEvent } from '../../client/webhooks/store.js';

const recorded: RecordedEvent = { id: 'evt_1', key: 'k', event: { event: 'session.resumed', session: { id: 'sess_1' } }, receivedAt: 0, attempt: 1 };
const bug = new Error('hook bug');
const throwing = () => {
  throw bug;
};

describe('hooks that throw', () => {
  it("onError's throw is logged at error level", () => {
    const errors: object[] = [];
    const o = resolveReceiverOptions({ store: createMemoryEventStore(), onEvent: () => {}, onError: throwing });
    const report = failureReporter(o, { error: (obj) => errors.push(obj) });
    expect(() => report(new Error('handler failed'), recorded, false)).not.toThrow();
    expect(errors).toEqual([{ err: bug, id: 'evt_1' }]);
  });

  it("onHandlerRun's throw goes to onStoreError, and the run's outcome stands", async () => {
    const reports: [unknown, string][] = [];
    const p = {
      process: async () => {},
      onHandlerRun: throwing,
      onStoreError: (error: unknown, what: string) => reports.push([error, what]),
    } as unknown as ProcessingOptions;
    await expect(runHandler(p, recorded)).resolves.toBeUndefined();
    expect(reports).toEqual([[bug, 'receiver: onHandlerRun threw; processing goes on']]);
  });
});

describe('a memory store whose processing throws outside the handler', () => {
  it("keeps the event as a dead letter and reports it to onStoreError (onFailure's throw)", async () => {
    const reports: [unknown, string][] = [];
    const store = createMemoryEventStore();
    store.start({
      process: async () => {
        throw new Error('handler failed');
      },
      windowSeconds: 60,
      maxAttempts: 3,
      retryDelayMs: 1,
      onFailure: throwing,
      onStoreError: (error, what) => void reports.push([error, what]),
    });
    const outcome = await store.record('k1', recorded.event);
    await outcome.processing;
    expect(reports).toEqual([[bug, 'memory store: processing an event failed; it is kept as a dead letter']]);
    expect(await store.deadLetters()).toMatchObject([{ id: outcome.id, attempts: 1, error: 'hook bug' }]);
    expect(await store.retryDeadLetter(outcome.id)).toBe(true);
    await store.close();
  });
});
