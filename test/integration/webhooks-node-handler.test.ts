/**
 * The Node/express adapter over real HTTP: URL token (404, nothing recorded), 405, 413 over
 * 1 MiB, express with and without body parsers, and acks well under 5 s (source spec §6 rule 2)
 * while the handler takes 10 s.
 */
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  createMemoryEventStore,
  createWebhookReceiver,
  generateUrlToken,
  type ReceiverStore,
  type ReceivedEvent,
  type SessionEvent,
  type WebhookReceiver,
} from '../../client/webhooks/index.js';
import { createRedisEventStore } from '../../client/webhooks/redis/index.js';
import { deletePrefix, uniquePrefix } from '../helpers/redis-keys.js';
import { waitFor } from '../helpers/wait-for.js';

const redisUrl = inject('redisUrl');
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

let n = 0;
const anEvent = (): SessionEvent => ({
  event: 'session.resumed',
  session: { id: `sess_h${++n}` },
  timestamp: `${new Date().toISOString()}#${n}`,
});

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.push(() => new Promise((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function receiverWith(options: { urlToken?: string; store?: ReceiverStore } = {}) {
  const seen: ReceivedEvent[] = [];
  const receiver = createWebhookReceiver({ store: options.store ?? createMemoryEventStore(), onEvent: (e) => void seen.push(e), urlToken: options.urlToken });
  cleanup.push(() => receiver.close());
  return { receiver, seen };
}

const post = (url: string, payload: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(url, { method: 'POST', headers, body: typeof payload === 'string' ? payload : JSON.stringify(payload) });

describe('node:http adapter', () => {
  it('answers 200 with a WebhookAck and application/json, 405 for other methods', async () => {
    const { receiver, seen } = receiverWith();
    const base = await listen(createServer(receiver.handler));
    const event = anEvent();
    const res = await post(`${base}/hooks`, event);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ received: true, duplicate: false });
    const get = await fetch(`${base}/hooks`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    await waitFor(() => seen.length === 1);
    const bad = await post(`${base}/hooks`, 'not json');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ success: false, error: 'bad_request' });
  });

  it('urlToken: a wrong or missing token is 404 and records nothing', async () => {
    const token = generateUrlToken();
    const { receiver, seen } = receiverWith({ urlToken: token });
    const base = await listen(createServer(receiver.handler));
    const event = anEvent();
    for (const path of ['/hooks', `/hooks/${token.slice(0, -1)}`, `/hooks/${token}x`, `/${token}/extra`, '/']) {
      const res = await post(`${base}${path}`, event);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ success: false, error: 'not_found', message: 'Not found.' });
    }
    // Nothing was recorded: the first delivery with the right token is not a duplicate.
    const ok = await post(`${base}/hooks/${token}?x=1`, event);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ duplicate: false });
    await waitFor(() => seen.length === 1);
  });

  it('answers 413 for a body over 1 MiB, with or without Content-Length, and records nothing', async () => {
    const { receiver, seen } = receiverWith();
    const base = await listen(createServer(receiver.handler));
    const big = { ...anEvent(), padding: 'x'.repeat(1024 * 1024) };
    const withLength = await post(`${base}/hooks`, big);
    expect(withLength.status).toBe(413);
    expect(await withLength.json()).toMatchObject({ error: 'payload_too_large' });
    // Chunked: no Content-Length, the limit is enforced while reading.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request(`${base}/hooks`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      const text = JSON.stringify(big);
      for (let i = 0; i < text.length; i += 64 * 1024) req.write(text.slice(i, i + 64 * 1024));
      req.end();
    });
    expect(chunked).toBe(413);
    const fits = await post(`${base}/hooks`, { ...anEvent(), padding: 'x'.repeat(1000 * 1000) });
    expect(fits.status).toBe(200);
    await waitFor(() => seen.length === 1);
  });
});

describe('express adapter', () => {
  it.each([
    ['no body parser', null],
    ['express.json()', express.json({ limit: '2mb' })],
    ['express.raw()', express.raw({ type: '*/*', limit: '2mb' })],
    ['express.text()', express.text({ type: '*/*', limit: '2mb' })],
  ])('works as a route handler with %s, token in the route path', async (_name, parser) => {
    const token = generateUrlToken();
    const { receiver, seen } = receiverWith({ urlToken: token });
    const app = express();
    if (parser) app.use(parser);
    app.post('/webhooks/session-events/:token', receiver.handler);
    const base = await listen(createServer(app));
    const event = { ...anEvent(), extra: { nested: true } };
    const res = await post(`${base}/webhooks/session-events/${token}`, event);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ received: true, duplicate: false });
    expect((await post(`${base}/webhooks/session-events/${token}`, event)).status).toBe(200);
    expect((await post(`${base}/webhooks/session-events/wrong-token-wrong-token`, anEvent())).status).toBe(404);
    const invalid = await post(`${base}/webhooks/session-events/${token}`, { status: '', session: {} });
    expect(invalid.status).toBe(400);
    await waitFor(() => seen.length === 1);
    expect(seen[0]).toEqual(event);
  });
});

describe.each([
  // concurrency 5: close() waits for the five 10 s handlers side by side, not one after another.
  ['memory', () => createMemoryEventStore({ concurrency: 5 })],
  [
    'redis',
    () => {
      const prefix = uniquePrefix('slow');
      cleanup.push(() => deletePrefix(redisUrl, prefix));
      return createRedisEventStore({ url: redisUrl, prefix, concurrency: 5 });
    },
  ],
])('ack time with a 10 s handler (%s store)', (_name, makeStore) => {
  it('acknowledges every delivery well under 5 s while the handler runs 10 s per event', { timeout: 60_000 }, async () => {
    let started = 0;
    const receiver: WebhookReceiver = createWebhookReceiver({
      store: makeStore(),
      onEvent: async () => {
        started++;
        await new Promise((r) => setTimeout(r, 10_000));
      },
    });
    cleanup.push(() => receiver.close());
    const base = await listen(createServer(receiver.handler));
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const res = await post(`${base}/hooks`, anEvent());
      latencies.push(performance.now() - t0);
      expect(res.status).toBe(200);
    }
    await waitFor(() => started >= 1);
    console.log(
      `ack latency with a 10 s handler (${_name}): max ${Math.max(...latencies).toFixed(1)} ms, all ${latencies.map((l) => l.toFixed(1)).join(', ')}`,
    );
    for (const l of latencies) expect(l).toBeLessThan(5_000);
  });
});
