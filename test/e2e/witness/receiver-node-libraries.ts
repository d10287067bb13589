/**
 * Webhook receivers written with other Node libraries, the way their documentation shows, for
 * the witness suite (receiver-witness.test.ts holds each one's expected verdicts):
 * - svix (1.82.0): `new Webhook(secret).verify(payload, headers)` throws WebhookVerificationError
 *   on a bad signature or a timestamp more than 5 minutes off, and the svix docs answer it 400
 *   (https://docs.svix.com/receiving/verifying-payloads/how); it reads `svix-*` or, failing
 *   those, the Standard Webhooks `webhook-*` headers (node_modules/svix/dist/webhook.js).
 * - hono (4.13.19) on @hono/node-server (2.1.9): `c.req.text()`, `c.json(…)` answers 200 by
 *   default (https://hono.dev/docs/api/context#json); it checks no signature.
 * - node:http answering 201 Created, as a REST habit for "created a record".
 * Each counts what it processed for --observe (GET /processed).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { Webhook } from 'svix';

/** A receiver listening on 127.0.0.1. */
export interface NodeReceiver {
  url: string;
  observe: string;
  close(): Promise<void>;
}

type Event = { event?: string; status?: string; session?: { id?: string }; session_id?: string; timestamp?: string };
const observeKey = (e: Event) => `${e.event ?? e.status} ${e.session?.id ?? e.session_id} ${e.timestamp}`;

function counter() {
  const counts = new Map<string, number>();
  return { add: (e: Event) => counts.set(observeKey(e), (counts.get(observeKey(e)) ?? 0) + 1), json: () => JSON.stringify(Object.fromEntries(counts)) };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((done) => {
    server.close(() => done());
    server.closeAllConnections();
  });
}

function listening(server: Server): Promise<NodeReceiver> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve({ url: `${base}/webhooks`, observe: `${base}/processed`, close: () => closeServer(server) });
    }),
  );
}

/** svix's verify, a Set of webhook-ids for dedupe. */
export function startSvixReceiver(secret: string): Promise<NodeReceiver> {
  const verifier = new Webhook(secret);
  const seen = new Set<string>();
  const processed = counter();
  const server = createServer((req, res) => {
    if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end(processed.json());
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      let event: Event;
      try {
        event = verifier.verify(body, req.headers as Record<string, string>) as Event;
      } catch {
        return void res.writeHead(400).end();
      }
      const id = String(req.headers['webhook-id']);
      const duplicate = seen.has(id);
      seen.add(id);
      if (!duplicate) processed.add(event);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: true, duplicate }));
    });
  });
  return listening(server);
}

/** hono: a Map of webhook-ids for dedupe, no signature check. */
export async function startHonoReceiver(): Promise<NodeReceiver> {
  const seen = new Set<string>();
  const processed = counter();
  const app = new Hono();
  app.get('/processed', (c) => c.body(processed.json(), 200, { 'content-type': 'application/json' }));
  app.post('/webhooks', async (c) => {
    const event = JSON.parse(await c.req.text()) as Event;
    const id = c.req.header('webhook-id') ?? observeKey(event);
    const duplicate = seen.has(id);
    seen.add(id);
    if (!duplicate) processed.add(event);
    return c.json({ received: true, duplicate });
  });
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${base}/webhooks`, observe: `${base}/processed`, close: () => closeServer(server) };
}

/** node:http answering 201 to every delivery. */
export function startCreatedReceiver(): Promise<NodeReceiver> {
  const processed = counter();
  const server = createServer((req, res) => {
    if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end(processed.json());
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      processed.add(JSON.parse(body) as Event);
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"created":true}');
    });
  });
  return listening(server);
}
