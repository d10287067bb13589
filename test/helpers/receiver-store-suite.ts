/** The shared receiver store suite (test/integration/webhooks-receiver.test.ts and the cluster suite run it). */
import { afterAll, describe, expect, it } from 'vitest';
import {
  dedupeKey,
  type ReceiverStore,
  type ReceivedEvent,
  type SessionEvent,
  type WebhookReceiverBaseOptions,
  createWebhookReceiver,
} from '../../client/webhooks/index.js';
import { waitFor } from './wait-for.js';

let n = 0;
export const anEvent = (extra: Record<string, unknown> = {}): SessionEvent => ({
  event: 'session.resumed',
  session: { id: `sess_${++n}_${Date.now()}` },
  timestamp: new Date().toISOString(),
  ...extra,
});
export const body = (value: unknown) => JSON.stringify(value);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The receiver semantics every `ReceiverStore` must give, as one suite: call it once per store
 * (memory, Redis, Redis Cluster). `makeStore` returns a fresh store each call.
 */
export function receiverStoreSuite(name: string, makeStore: () => ReceiverStore): void {
  describe(`receiver semantics with the ${name} store`, () => {
    const open: Array<{ close(): Promise<void> }> = [];
    afterAll(async () => {
      await Promise.all(open.map((r) => r.close()));
    });
    const make = (options: Partial<WebhookReceiverBaseOptions> = {}) => {
      const calls: Array<{ event: ReceivedEvent; attempt: number }> = [];
      const receiver = createWebhookReceiver({
        store: makeStore(),
        onEvent: (event, ctx) => {
          calls.push({ event, attempt: ctx.attempt });
        },
        retryDelayMs: 20,
        onError: () => {},
        ...options,
      });
      open.push(receiver);
      return { receiver, calls };
    };

    it('acknowledges a first delivery, processes it once, answers a duplicate 200 without processing', async () => {
      const { receiver, calls } = make();
      const event = anEvent();
      const first = await receiver.receive(body(event));
      expect(first).toMatchObject({ status: 200, body: { received: true, duplicate: false } });
      const again = await receiver.receive(body(event));
      expect(again).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
      await waitFor(() => calls.length === 1);
      await sleep(200);
      expect(calls).toEqual([{ event, attempt: 1 }]);
    });

    it('answers 400 with a message for invalid JSON and for an object with neither an event name nor a session id', async () => {
      const { receiver, calls } = make();
      const notJson = await receiver.receive('{"event": ');
      expect(notJson.status).toBe(400);
      expect(notJson.body).toMatchObject({ success: false, error: 'bad_request', message: expect.stringMatching(/not UTF-8 JSON/) });
      const neither = await receiver.receive(body({ event: '', status: 7, session: {}, session_id: '', timestamp: 't' }));
      expect(neither.body).toMatchObject({
        error: 'bad_request',
        message: expect.stringMatching(
          /event name \(event or status\) or a session id \(session.id or session_id\).*event is an empty string.*status is a number.*session.id is absent.*session_id is an empty string/,
        ),
      });
      // The field is there with the wrong type: the answer names it and says why.
      const wrongType = await receiver.receive(body({ session: { id: 5 } }));
      expect(wrongType).toMatchObject({ status: 400, body: { message: expect.stringContaining('session.id is a number, not a non-empty string') } });
      expect(JSON.stringify(wrongType.body)).not.toMatch(/neither/);
      const scalar = await receiver.receive('"session.resumed"');
      expect(scalar.body).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/not a JSON object/) });
      const array = await receiver.receive(body([anEvent()]));
      expect(array.status).toBe(400);
      await sleep(100);
      expect(calls).toHaveLength(0);
    });

    it('accepts the flat form of the vendor SDK, normalized for the handler, and dedupes it (x-decisions: event-payload-forms)', async () => {
      const { receiver, calls } = make();
      const id = `sess_flat_${Math.random().toString(36).slice(2)}`;
      const flat = { status: 'completed', session_id: id, data: { steps: 3 }, result: 'ok' };
      const first = await receiver.receive(body(flat));
      expect(first).toMatchObject({ status: 200, body: { duplicate: false } });
      // Same object, other member order: one canonical body, so a duplicate.
      const again = await receiver.receive(JSON.stringify({ result: 'ok', data: { steps: 3 }, session_id: id, status: 'completed' }));
      expect(again).toMatchObject({ status: 200, body: { duplicate: true } });
      // Without a timestamp, another body is another event, even with the same name and session.
      const other = await receiver.receive(body({ ...flat, data: { steps: 4 } }));
      expect(other).toMatchObject({ status: 200, body: { duplicate: false } });
      await waitFor(() => calls.length === 2);
      const handled = calls.map((c) => c.event).find((e) => (e.data as { steps: number }).steps === 3);
      expect(handled).toEqual({ ...flat, event: 'completed', session: { id } });
      expect(handled).not.toHaveProperty('timestamp');
    });

    it('accepts unknown event kinds and extra fields (x-decisions: event-kinds)', async () => {
      const { receiver, calls } = make();
      const event = { event: 'session.something_new', session: { id: 'sess_x', reason: 'r' }, timestamp: '1763740800', attempt: 2 };
      expect((await receiver.receive(body(event))).status).toBe(200);
      await waitFor(() => calls.length === 1);
      expect(calls[0]!.event).toEqual(event);
    });

    it('dedupes by event, session.id and timestamp exactly as sent', async () => {
      const { receiver, calls } = make();
      const event = anEvent({ timestamp: '2026-11-21T16:00:00.000Z' });
      await receiver.receive(body(event));
      // Extra fields differ: same identity, duplicate.
      expect((await receiver.receive(body({ ...event, attempt: 3 }))).body).toMatchObject({ duplicate: true });
      // The same instant written differently is a different timestamp: never normalised.
      expect((await receiver.receive(body({ ...event, timestamp: '2026-11-21T16:00:00Z' }))).body).toMatchObject({ duplicate: false });
      expect((await receiver.receive(body({ ...event, event: 'session.paused' }))).body).toMatchObject({ duplicate: false });
      expect((await receiver.receive(body({ ...event, session: { id: `${event.session?.id}x` } }))).body).toMatchObject({ duplicate: false });
      await waitFor(() => calls.length === 4);
      expect(dedupeKey(event)).toMatch(/^[0-9a-f]{64}$/);
      expect(dedupeKey(event)).not.toBe(dedupeKey({ ...event, timestamp: '2026-11-21T16:00:00Z' }));
    });

    it('forgets a record after dedupeWindowSeconds and processes the event again', async () => {
      const { receiver, calls } = make({ dedupeWindowSeconds: 1 });
      const event = anEvent();
      await receiver.receive(body(event));
      await waitFor(() => calls.length === 1);
      expect((await receiver.receive(body(event))).body).toMatchObject({ duplicate: true });
      await sleep(1300);
      expect((await receiver.receive(body(event))).body).toMatchObject({ duplicate: false });
      await waitFor(() => calls.length === 2);
    });

    it('answers before the handler finishes (ack does not wait for onEvent)', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let finished = 0;
      const { receiver } = make({
        onEvent: async () => {
          await gate;
          finished++;
        },
      });
      const answer = await receiver.receive(body(anEvent()));
      expect(answer.status).toBe(200);
      expect(finished).toBe(0);
      release();
      await waitFor(() => finished === 1);
    });

    it('retries a throwing handler with backoff and succeeds within maxAttempts', async () => {
      const failures: Array<{ attempt: number; final: boolean }> = [];
      const attempts: number[] = [];
      const { receiver } = make({
        maxAttempts: 3,
        onEvent: (_e, ctx) => {
          attempts.push(ctx.attempt);
          if (ctx.attempt < 3) throw new Error(`boom ${ctx.attempt}`);
        },
        onError: (_err, ctx) => failures.push({ attempt: ctx.attempt, final: ctx.final }),
      });
      await receiver.receive(body(anEvent()));
      await waitFor(() => attempts.length === 3);
      await sleep(200);
      expect(attempts).toEqual([1, 2, 3]);
      expect(failures.map((f) => f.final)).toEqual([false, false]);
      expect(await receiver.deadLetters()).toEqual([]);
    });

    it('dead-letters after maxAttempts; retryDeadLetter and a redelivery both process it again', async () => {
      let fail = true;
      const finals: boolean[] = [];
      const done: string[] = [];
      const { receiver } = make({
        maxAttempts: 2,
        onEvent: (e) => {
          if (fail) throw new Error('handler down');
          done.push(e.session?.id ?? '');
        },
        onError: (_err, ctx) => finals.push(ctx.final),
      });
      const a = anEvent();
      const b = anEvent();
      const ackA = await receiver.receive(body(a));
      await sleep(2); // dead letters are listed by recording time (ms): b is recorded after a
      await receiver.receive(body(b));
      await waitFor(async () => (await receiver.deadLetters()).length === 2);
      const dead = await receiver.deadLetters();
      expect(dead.map((d) => d.event)).toEqual([a, b]);
      expect(dead[0]).toMatchObject({ attempts: 2, error: 'handler down', key: dedupeKey(a) });
      expect(finals.filter(Boolean)).toHaveLength(2);

      fail = false;
      expect(await receiver.retryDeadLetter('no-such-id')).toBe(false);
      expect(ackA.status).toBe(200);
      expect(await receiver.retryDeadLetter(dead[0]!.id)).toBe(true);
      // The dedupe record of b does not suppress a retry of its failed processing.
      expect((await receiver.receive(body(b))).body).toMatchObject({ duplicate: true });
      await waitFor(() => done.length === 2);
      expect(done.sort()).toEqual([a.session.id, b.session.id].sort());
      expect(await receiver.deadLetters()).toEqual([]);
      // Processed now: a further delivery is a plain duplicate.
      await receiver.receive(body(b));
      await sleep(200);
      expect(done).toHaveLength(2);
    });

    it('close() waits for the handler under way, and then answers 503', async () => {
      let finished = false;
      const { receiver } = make({
        onEvent: async () => {
          await sleep(300);
          finished = true;
        },
      });
      await receiver.receive(body(anEvent()));
      await sleep(100);
      await receiver.close();
      expect(finished).toBe(true);
      expect((await receiver.receive(body(anEvent()))).status).toBe(503);
    });
  });
}
