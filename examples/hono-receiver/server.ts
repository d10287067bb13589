/**
 * A webhook receiver on Hono, served by @hono/node-server, you can copy. `receiver.fetch`
 * takes the web `Request` as Hono holds it (`c.req.raw`) and returns the `Response`: the body
 * is read raw by the receiver, never parsed before the signature is checked. The same app runs
 * on Bun, Deno and Cloudflare Workers with their own `serve` (the memory store needs no Node
 * built-in; the Redis store needs TCP: Node or Bun).
 *
 *   WEBHOOK_URL_TOKEN=<32 random bytes, base64url> WEBHOOK_SECRET=whsec_... node --import tsx server.ts
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createMemoryEventStore, createWebhookReceiver } from 'session-resume-api/webhooks';

const port = Number(process.env.PORT ?? 3001);
const urlToken = process.env.WEBHOOK_URL_TOKEN;
if (!urlToken) throw new Error('Set WEBHOOK_URL_TOKEN to a long random string (32 random bytes, base64url).');

const receiver = createWebhookReceiver({
  store: createMemoryEventStore(),
  urlToken,
  ...(process.env.WEBHOOK_SECRET ? { secret: process.env.WEBHOOK_SECRET.split(',') } : {}),
  onEvent: async (event, { attempt }) => {
    console.log(JSON.stringify({ msg: 'session event', event: event.event, sessionId: event.session?.id, timestamp: event.timestamp, attempt }));
  },
});

const app = new Hono();
// Every method, so that a GET gets the receiver's 405 answer.
app.all('/webhooks/session-events/:token', (c) => receiver.fetch(c.req.raw));
app.get('/healthz', (c) => c.json({ ok: true }));

const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => console.log(JSON.stringify({ msg: 'listening', port })));

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close();
    void receiver.close().then(() => process.exit(0));
  });
}
