/**
 * The receiver semantics (source spec §6 rules 2–4), one suite run against both stores:
 * validation, dedupe key and window, ack before processing, retries, dead letters, close.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { contract } from '@session-resume-api/runtime/contract';
import { createMemoryEventStore, createWebhookReceiver, type ReceiverStore, type WebhookReceiverOptions } from '../../client/webhooks/index.js';
import { createRedisEventStore } from '../../client/webhooks/redis/index.js';
import { waitFor } from '../helpers/wait-for.js';
import { anEvent, body, receiverStoreSuite } from '../helpers/receiver-store-suite.js';
import { deletePrefix, uniquePrefix } from '../helpers/redis-keys.js';

const redisUrl = inject('redisUrl');
const prefixes: string[] = [];
afterAll(async () => {
  for (const p of prefixes) await deletePrefix(redisUrl, p);
});

const stores: Array<[string, () => ReceiverStore]> = [
  ['memory', () => createMemoryEventStore()],
  [
    'redis',
    () => {
      const prefix = uniquePrefix('recv');
      prefixes.push(prefix);
      return createRedisEventStore({ url: redisUrl, prefix });
    },
  ],
];

for (const [name, makeStore] of stores) receiverStoreSuite(name, makeStore);

describe('memory store with a fake clock (the default window: x-delivery-policy dedupe.windowMs)', () => {
  it('is still a duplicate 10 minutes later and at the end of the default window, and processed again after it', async () => {
    const windowMs = WEBHOOK_DELIVERY_POLICY.dedupe.windowMs;
    let clock = Date.parse('2026-11-21T16:00:00.000Z');
    const seen: string[] = [];
    const receiver = createWebhookReceiver({ store: createMemoryEventStore({ now: () => clock }), onEvent: (e) => void seen.push(e.timestamp ?? '') });
    const event = anEvent();
    expect((await receiver.receive(body(event))).body).toMatchObject({ duplicate: false });
    // Handled first: a record outlives its window while its event is still being processed.
    await waitFor(() => seen.length === 1);
    clock += 10 * 60_000;
    expect((await receiver.receive(body(event))).body).toMatchObject({ duplicate: true });
    clock += windowMs - 10 * 60_000 - 1_000;
    expect((await receiver.receive(body(event))).body).toMatchObject({ duplicate: true });
    clock += 1_000;
    expect((await receiver.receive(body(event))).body).toMatchObject({ duplicate: false });
    await waitFor(() => seen.length === 2);
    await receiver.close();
  });
});

describe('answers are in the spec shapes', () => {
  it('200 bodies are WebhookAck, 400/413/503 bodies are Error (contract.validate)', async () => {
    const receiver = createWebhookReceiver({ store: createMemoryEventStore(), onEvent: () => {}, maxBodyBytes: 1000 });
    const event = anEvent();
    const results = [
      await receiver.receive(body(event)),
      await receiver.receive(new TextEncoder().encode(body(event))),
      await receiver.receive('nope'),
      await receiver.receive(new Uint8Array([0x7b, 0xff, 0x7d])),
      await receiver.receive(body({ ...event, padding: 'x'.repeat(1000) })),
    ];
    await receiver.close();
    results.push(await receiver.receive(body(anEvent())));
    expect(results.map((r) => r.status)).toEqual([200, 200, 400, 400, 413, 503]);
    for (const r of results) {
      const checked = contract.validate(r.status === 200 ? 'WebhookAck' : 'Error', r.body);
      expect(checked.ok, JSON.stringify(r)).toBe(true);
    }
  });
});

describe('createWebhookReceiver options', () => {
  const store = createMemoryEventStore();
  it.each([
    [{ onEvent: () => {} }, /store must be a ReceiverStore/],
    [{ store }, /onEvent must be a function/],
    [{ store, onEvent: () => {}, dedupeWindowSeconds: 0 }, /dedupeWindowSeconds must be a positive number/],
    [{ store, onEvent: () => {}, maxAttempts: 0 }, /maxAttempts must be an integer ≥ 1/],
    [{ store, onEvent: () => {}, urlToken: 'short' }, /urlToken must be a string of at least 22/],
  ])('rejects %o', (options, message) => {
    expect(() => createWebhookReceiver(options as WebhookReceiverOptions)).toThrow(message);
  });
  it('createRedisEventStore needs exactly one of url or client', () => {
    expect(() => createRedisEventStore({} as never)).toThrow(/exactly one of url/);
    expect(() => createRedisEventStore({ url: 'http://x' })).toThrow(/redis:\/\//);
  });
});

describe('redis store: recorded in Redis before the 200, 503 when Redis is unreachable', () => {
  it('a second instance sees the recording as a duplicate right after the first answered 200', async () => {
    const prefix = uniquePrefix('recv-shared');
    prefixes.push(prefix);
    const a = createWebhookReceiver({ store: createRedisEventStore({ url: redisUrl, prefix, process: false }), onEvent: () => {} });
    const b = createWebhookReceiver({ store: createRedisEventStore({ url: redisUrl, prefix, process: false }), onEvent: () => {} });
    const event = anEvent();
    expect((await a.receive(body(event))).body).toMatchObject({ duplicate: false });
    expect((await b.receive(body(event))).body).toMatchObject({ duplicate: true });
    await Promise.all([a.close(), b.close()]);
  });

  it('takes an ioredis client (duplicated, left open for its owner)', async () => {
    const prefix = uniquePrefix('recv-client');
    prefixes.push(prefix);
    const client = new Redis(redisUrl);
    const seen: string[] = [];
    const receiver = createWebhookReceiver({ store: createRedisEventStore({ client, prefix }), onEvent: (e) => void seen.push(e.session?.id ?? '') });
    const event = anEvent();
    expect((await receiver.receive(body(event))).status).toBe(200);
    await waitFor(() => seen.length === 1);
    await receiver.close();
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
  });

  it('answers 503 quickly when nothing listens on the Redis port', async () => {
    const receiver = createWebhookReceiver({
      store: createRedisEventStore({ url: 'redis://127.0.0.1:1', prefix: uniquePrefix('down'), recordTimeoutMs: 500 }),
      onEvent: () => {},
    });
    const answer = await receiver.receive(body(anEvent()));
    expect(answer).toMatchObject({ status: 503, body: { success: false, error: 'service_unavailable' } });
    await receiver.close();
  });
});
