/**
 * `order: 'per-session'`: resumed → paused → resumed of one session arrive out of order
 * (the paused one last) at two instances sharing one Redis store; the paused one, older than
 * the newest already processed, is acknowledged and recorded and goes to `onStale` once (its
 * redelivery to the other instance is a duplicate), never to `onEvent`. The same with the memory
 * store; without the option every event goes to `onEvent`, as before; an event without a
 * timestamp is never judged older.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  createMemoryEventStore,
  createWebhookReceiver,
  type EventOrder,
  type OrderedReceiverStore,
  type WebhookReceiver,
} from '../../client/webhooks/index.js';
import { createRedisEventStore } from '../../client/webhooks/redis/index.js';
import { listen } from '../helpers/listen.js';
import { deletePrefix, uniquePrefix } from '../helpers/redis-keys.js';
import { waitFor } from '../helpers/wait-for.js';

const redisUrl = inject('redisUrl');
const closers: Array<() => Promise<void>> = [];
const prefixes: string[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  for (const p of prefixes) await deletePrefix(redisUrl, p);
});

interface Seen {
  handled: string[];
  stale: string[];
}

let n = 0;
function instance(store: OrderedReceiverStore, seen: Seen, options: { order?: EventOrder } = { order: 'per-session' }): WebhookReceiver {
  const receiver = createWebhookReceiver({
    store,
    logger: false,
    ...options,
    onEvent: (event) => void seen.handled.push(`${event.event}@${event.timestamp}`),
    onStale: (event) => void seen.stale.push(`${event.event}@${event.timestamp}`),
  });
  closers.push(() => receiver.close());
  return receiver;
}

/** Posts one event over real HTTP to an instance. */
async function deliver(base: string, event: object): Promise<{ status: number; body: { duplicate?: boolean } }> {
  const res = await fetch(`${base}/hooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
  return { status: res.status, body: (await res.json()) as { duplicate?: boolean } };
}

async function serve(receiver: WebhookReceiver): Promise<string> {
  const server = await listen(receiver.handler);
  closers.push(() => server.close());
  return server.url;
}

/** resumed@t1, resumed@t3, then paused@t2 (late), then paused@t2 again at the other instance. */
async function outOfOrder(a: string, b: string, seen: Seen) {
  const session = { id: `sess_order_${++n}` };
  const at = (s: number) => new Date(Date.UTC(2026, 10, 25, 10, 0, s)).toISOString();
  expect((await deliver(a, { event: 'session.resumed', session, timestamp: at(1) })).status).toBe(200);
  await waitFor(() => seen.handled.length === 1);
  expect((await deliver(b, { event: 'session.resumed', session, timestamp: at(3) })).status).toBe(200);
  await waitFor(() => seen.handled.length === 2);
  expect(await deliver(a, { event: 'session.paused', session, timestamp: at(2) })).toMatchObject({ status: 200, body: { duplicate: false } });
  await waitFor(() => seen.stale.length === 1);
  expect(await deliver(b, { event: 'session.paused', session, timestamp: at(2) })).toMatchObject({ status: 200, body: { duplicate: true } });
  // An event of the same session without a timestamp cannot be judged older: it is handled.
  expect((await deliver(b, { event: 'session.note', session })).status).toBe(200);
  await waitFor(() => seen.handled.length === 3);
  await new Promise((r) => setTimeout(r, 300));
  expect(seen.stale).toEqual([`session.paused@${at(2)}`]);
  expect(seen.handled).toEqual([`session.resumed@${at(1)}`, `session.resumed@${at(3)}`, 'session.note@undefined']);
}

describe("order: 'per-session'", () => {
  it('two instances on one Redis store: the stale paused goes to onStale, once', async () => {
    const prefix = uniquePrefix('order');
    prefixes.push(prefix);
    const seen: Seen = { handled: [], stale: [] };
    const a = await serve(instance(createRedisEventStore({ url: redisUrl, prefix }), seen));
    const b = await serve(instance(createRedisEventStore({ url: redisUrl, prefix }), seen));
    await outOfOrder(a, b, seen);
  });

  it('the memory store keeps the same order', async () => {
    const seen: Seen = { handled: [], stale: [] };
    const base = await serve(instance(createMemoryEventStore(), seen));
    await outOfOrder(base, base, seen);
  });

  it('the default hands every event to onEvent in the order it came', async () => {
    const seen: Seen = { handled: [], stale: [] };
    const base = await serve(instance(createMemoryEventStore(), seen, {}));
    const session = { id: `sess_order_${++n}` };
    for (const [event, s] of [
      ['session.resumed', 1],
      ['session.resumed', 3],
      ['session.paused', 2],
    ] as const) {
      await deliver(base, { event, session, timestamp: new Date(Date.UTC(2026, 10, 25, 10, 0, s)).toISOString() });
      await waitFor(() => seen.handled.length === (s === 1 ? 1 : s === 3 ? 2 : 3));
    }
    expect(seen.stale).toEqual([]);
  });

  it('is refused for a store that cannot keep it', () => {
    const { advanceSession: _, ...store } = createMemoryEventStore();
    // The types rule it out (test/unit/receiver-options.test-d.ts); a JavaScript caller may pass it.
    const options = { store, order: 'per-session', onEvent: () => {} } as never;
    expect(() => createWebhookReceiver(options)).toThrow(/order 'per-session' needs a store/);
  });
});
