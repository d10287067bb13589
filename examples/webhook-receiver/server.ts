/**
 * A webhook receiver you can copy: express + Redis, `onEvent` logs each session event.
 *
 *   REDIS_URL=redis://127.0.0.1:6379 WEBHOOK_URL_TOKEN=$(node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))") \
 *     node --import tsx server.ts        (in this repository: node --conditions=source --import tsx examples/webhook-receiver/server.ts)
 *
 * Register https://<your-host>/webhooks/session-events/<WEBHOOK_URL_TOKEN> with the service
 * (HTTPS: put TLS in front, e.g. a reverse proxy or load balancer). Run as many instances as
 * you like against the same Redis: an event is processed once across all of them.
 */
import express from 'express';
import { createWebhookReceiver } from 'session-resume-api/webhooks';
import { createRedisEventStore } from 'session-resume-api/webhooks/redis';

const port = Number(process.env.PORT ?? 3001);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const urlToken = process.env.WEBHOOK_URL_TOKEN;
if (!urlToken) throw new Error('Set WEBHOOK_URL_TOKEN to a long random string (32 random bytes, base64url).');
// Receivers that share one Redis but must not share events each get their own prefix.
const prefix = process.env.RECEIVER_KEY_PREFIX;
if (prefix !== undefined && prefix.trim() === '')
  throw new Error('RECEIVER_KEY_PREFIX is set but blank: give a prefix (no : { or }), or unset it for the default.');

const receiver = createWebhookReceiver({
  store: createRedisEventStore({ url: redisUrl, ...(prefix ? { prefix: prefix.trim() } : {}) }),
  urlToken,
  // Standard Webhooks signatures, when the service signs (several secrets, comma-separated, during a rotation).
  ...(process.env.WEBHOOK_SECRET ? { secret: process.env.WEBHOOK_SECRET.split(',') } : {}),
  // Runs after the 200; throw to have the event retried (5 attempts, then a dead letter).
  onEvent: async (event, { attempt }) => {
    console.log(JSON.stringify({ msg: 'session event', event: event.event, sessionId: event.session?.id, timestamp: event.timestamp, attempt }));
  },
  onError: (error, { event, attempt, final }) => {
    console.error(JSON.stringify({ msg: final ? 'dead-lettered' : 'will retry', sessionId: event.session?.id, attempt, error: String(error) }));
  },
});

const app = express();
// No body parser needed: the handler reads the raw body (express.json() before it works too).
// Every method goes to the handler, so that a GET gets its 405 JSON answer, not express's page.
app.all('/webhooks/session-events/:token', receiver.handler);
app.get('/healthz', (_req, res) => {
  res.json({ ok: true });
});

// Anything else: a JSON 404 that repeats nothing of the request (the path may hold a token).
app.use((_req, res) => {
  res.status(404).json({ success: false, error: 'not_found', message: 'Not found.' });
});

const server = app.listen(port, () => console.log(JSON.stringify({ msg: 'listening', port })));

// Graceful shutdown: stop accepting, let the handlers under way finish; queued events stay in Redis.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close();
    void receiver.close().then(() => process.exit(0));
  });
}
