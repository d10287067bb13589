/**
 * `receiver.fetch` (web `Request` → `Response`) answers every request exactly as
 * `receiver.handler` (node:http) does: each answer the Node adapter gives is produced over
 * real HTTP and by a real `Request` (a `Headers` object included), and the two are compared:
 * status, body and headers. Also: `Headers` objects and Svix header names in `receive`.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createMemoryEventStore,
  createProbeEvent,
  createWebhookReceiver,
  generateUrlToken,
  StoreUnavailableError,
  type ReceiverStore,
  type WebhookReceiver,
} from '../../client/webhooks/index.js';
import { listen, type Listening } from '../helpers/listen.js';
import { waitFor } from '../helpers/wait-for.js';

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const token = generateUrlToken();
const MAX = 4096;
let n = 0;
const eventBody = () => JSON.stringify({ event: 'session.resumed', session: { id: `sess_fetch_${++n}` }, timestamp: new Date().toISOString() });

function signed(body: string, options: { secret?: string; at?: Date; id?: string } = {}): Record<string, string> {
  const at = options.at ?? new Date();
  const id = options.id ?? `msg_${randomBytes(8).toString('hex')}`;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(options.secret ?? secret).sign(id, at, body),
  };
}

/** A store that cannot record: every delivery is answered 503. */
function failingStore(): ReceiverStore {
  const memory = createMemoryEventStore();
  return { ...memory, record: async () => Promise.reject(new StoreUnavailableError('the test store refuses')) };
}

interface Pair {
  node: Listening;
  web: WebhookReceiver;
  handled: string[];
}

/** Two receivers with the same options (one store each): one served by node:http, one called through fetch. */
async function pair(store: () => ReceiverStore = () => createMemoryEventStore()): Promise<Pair> {
  const handled: string[] = [];
  const make = () =>
    createWebhookReceiver({
      store: store(),
      secret,
      urlToken: token,
      maxBodyBytes: MAX,
      logger: false,
      onEvent: (e) => void handled.push(e.session?.id ?? ''),
    });
  const served = make();
  const web = make();
  const node = await listen(served.handler);
  closers.push(
    () => served.close(),
    () => web.close(),
    () => node.close(),
  );
  return { node, web, handled };
}

interface Sent {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Send the body in chunks without content-length. */
  chunked?: boolean;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string | undefined>;
}

const COMPARED_HEADERS = ['content-type', 'cache-control', 'allow', 'retry-after', 'connection'];

/** The answer without what differs by nature: the recording id (each receiver has its own store). */
function comparable(status: number, text: string, get: (name: string) => string | undefined): Answer {
  const body = JSON.parse(text) as Record<string, unknown>;
  if (typeof body.id === 'string') body.id = '(recording id)';
  const headers = Object.fromEntries(COMPARED_HEADERS.map((h) => [h, get(h)]));
  // node:http adds keep-alive on its own; only a close the receiver asked for is compared.
  if (headers.connection !== 'close') headers.connection = undefined;
  return { status, body, headers };
}

/** Sends over real HTTP with node:http, so that chunked bodies and odd methods go as given. */
function viaNode(base: string, sent: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${sent.path ?? `/hooks/${token}`}`,
      { method: sent.method ?? 'POST', headers: { 'content-type': 'application/json', ...sent.headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve(comparable(res.statusCode!, text, (h) => res.headers[h] as string | undefined)));
      },
    );
    req.on('error', reject);
    if (sent.body !== undefined && sent.chunked) {
      const bytes = typeof sent.body === 'string' ? Buffer.from(sent.body) : sent.body;
      for (let i = 0; i < bytes.length; i += 1000) req.write(bytes.subarray(i, i + 1000));
      req.end();
    } else req.end(sent.body);
  });
}

async function viaFetch(receiver: WebhookReceiver, sent: Sent): Promise<Answer> {
  const bytes = sent.body === undefined ? undefined : typeof sent.body === 'string' ? new TextEncoder().encode(sent.body) : sent.body;
  const headers = new Headers({ 'content-type': 'application/json', ...sent.headers });
  if (bytes && !sent.chunked) headers.set('content-length', String(bytes.byteLength));
  const body = bytes && sent.chunked ? new Blob([bytes as Uint8Array<ArrayBuffer>]).stream() : bytes;
  const request = new Request(`http://receiver.example${sent.path ?? `/hooks/${token}`}`, {
    method: sent.method ?? 'POST',
    headers,
    body: body ?? null,
    ...(sent.chunked ? { duplex: 'half' } : {}),
  } as RequestInit);
  const response = await receiver.fetch(request);
  return comparable(response.status, await response.text(), (h) => response.headers.get(h) ?? undefined);
}

async function compare(p: Pair, sent: Sent): Promise<Answer> {
  const [node, web] = [await viaNode(p.node.url, sent), await viaFetch(p.web, sent)];
  expect(web).toEqual(node);
  return node;
}

describe('receiver.fetch gives the answers of receiver.handler', () => {
  it('200 new, 200 duplicate (same body, same webhook-id), 200 probe; the handler runs once per receiver', async () => {
    const p = await pair();
    const body = eventBody();
    const headers = signed(body);
    expect(await compare(p, { body, headers })).toMatchObject({ status: 200, body: { received: true, duplicate: false } });
    expect(await compare(p, { body, headers })).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
    const probe = JSON.stringify(createProbeEvent());
    expect(await compare(p, { body: probe, headers: signed(probe) })).toMatchObject({ status: 200, body: { probe: true } });
    await waitFor(() => p.handled.length === 2);
    expect(p.handled).toEqual([`sess_fetch_${n}`, `sess_fetch_${n}`]);
  });

  it('400 for a body that is not JSON, not UTF-8, not an object, or has no usable field (which and why)', async () => {
    const p = await pair();
    for (const body of ['{"event": ', '[1]', '{"session":{"id":5}}', '{}']) {
      expect((await compare(p, { body, headers: signed(body) })).status).toBe(400);
    }
    const notUtf8 = new Uint8Array([0x7b, 0xff, 0x7d]);
    // Signed over the same bytes: verification passes on both, then the bytes are refused.
    const at = new Date();
    const id = 'msg_not_utf8';
    const signature = new Webhook(secret).sign(id, at, Buffer.from(notUtf8).toString('utf8'));
    const answer = await compare(p, {
      body: notUtf8,
      headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature },
    });
    expect([400, 401]).toContain(answer.status);
  });

  it('401 without a signature, with a wrong one, another secret, or a stale timestamp', async () => {
    const p = await pair();
    const body = eventBody();
    expect(await compare(p, { body })).toMatchObject({
      status: 401,
      body: { message: expect.stringContaining('webhook-id, webhook-timestamp and webhook-signature are required') },
    });
    expect((await compare(p, { body, headers: { ...signed(body), 'webhook-signature': 'v1,AAAA' } })).status).toBe(401);
    expect((await compare(p, { body, headers: signed(body, { secret: `whsec_${randomBytes(32).toString('base64')}` }) })).status).toBe(401);
    expect((await compare(p, { body, headers: signed(body, { at: new Date(Date.now() - 600_000) }) })).status).toBe(401);
  });

  it('404 for a wrong or missing URL token, 405 for another method, 413 declared or streamed', async () => {
    const p = await pair();
    const body = eventBody();
    expect((await compare(p, { body, headers: signed(body), path: '/hooks/not-the-token-not-the-token' })).status).toBe(404);
    expect((await compare(p, { body, headers: signed(body), path: '/' })).status).toBe(404);
    expect(await compare(p, { method: 'GET' })).toMatchObject({ status: 405, headers: { allow: 'POST' } });
    expect(await compare(p, { method: 'PUT', body })).toMatchObject({ status: 405 });
    const big = JSON.stringify({ event: 'e', session: { id: 's' }, pad: 'x'.repeat(MAX) });
    expect(await compare(p, { body: big })).toMatchObject({
      status: 413,
      headers: { connection: 'close' },
      body: { message: expect.stringContaining(`at most ${MAX}`) },
    });
    expect(await compare(p, { body: big, chunked: true })).toMatchObject({
      status: 413,
      body: { message: expect.stringContaining(`larger than ${MAX} bytes`) },
    });
  });

  it('503 with retry-after when the store cannot record', async () => {
    const p = await pair(failingStore);
    const body = eventBody();
    expect(await compare(p, { body, headers: signed(body) })).toMatchObject({ status: 503, headers: { 'retry-after': '5' } });
  });
});

describe('headers as the frameworks give them', () => {
  it('receive takes a Headers object or a record in any case, and Svix header names', async () => {
    const handled: string[] = [];
    const receiver = createWebhookReceiver({ store: createMemoryEventStore(), secret, logger: false, onEvent: (e) => void handled.push(e.session?.id ?? '') });
    closers.push(() => receiver.close());
    const a = eventBody();
    expect((await receiver.receive(a, new Headers(signed(a)))).status).toBe(200);
    const b = eventBody();
    const upper = Object.fromEntries(Object.entries(signed(b)).map(([k, v]) => [k.replace(/(^|-)\w/g, (c) => c.toUpperCase()), v]));
    expect((await receiver.receive(b, upper)).status).toBe(200);
    const c = eventBody();
    const svix = Object.fromEntries(Object.entries(signed(c, { id: 'msg_svix_1' })).map(([k, v]) => [k.replace('webhook-', 'svix-'), v]));
    expect((await receiver.receive(c, new Headers(svix))).status).toBe(200);
    // The svix-id is the sender's id: the same id with another body is a duplicate.
    const d = eventBody();
    const again = Object.fromEntries(Object.entries(signed(d, { id: 'msg_svix_1' })).map(([k, v]) => [k.replace('webhook-', 'svix-'), v]));
    expect(await receiver.receive(d, again)).toMatchObject({ status: 200, body: { duplicate: true } });
    await waitFor(() => handled.length === 3);
  });
});
