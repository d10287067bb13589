/**
 * A webhook receiver on fastify you can copy. The raw body is kept for signature verification
 * the way fastify documents it: in an encapsulated plugin, one content-type parser with
 * `parseAs: 'buffer'` for every type, so the bytes reach `receiver.answer` exactly as sent
 * (a parsed-and-reserialised JSON body would fail the signature).
 *
 *   WEBHOOK_URL_TOKEN=<32 random bytes, base64url> WEBHOOK_SECRET=whsec_... node --import tsx server.ts
 */
import Fastify from 'fastify';
import { createMemoryEventStore, createWebhookReceiver, DEFAULT_MAX_BODY_BYTES } from 'session-resume-api/webhooks';

const port = Number(process.env.PORT ?? 3001);
const urlToken = process.env.WEBHOOK_URL_TOKEN;
if (!urlToken) throw new Error('Set WEBHOOK_URL_TOKEN to a long random string (32 random bytes, base64url).');

const receiver = createWebhookReceiver({
  // One process: the memory store. Several instances: createRedisEventStore from 'session-resume-api/webhooks/redis'.
  store: createMemoryEventStore(),
  urlToken,
  // Several secrets, comma-separated, during a rotation: a delivery signed with any of them passes.
  ...(process.env.WEBHOOK_SECRET ? { secret: process.env.WEBHOOK_SECRET.split(',') } : {}),
  onEvent: async (event, { attempt }) => {
    console.log(JSON.stringify({ msg: 'session event', event: event.event, sessionId: event.session?.id, timestamp: event.timestamp, attempt }));
  },
});

const app = Fastify();
await app.register(async (webhooks) => {
  // Only in this plugin: every body arrives as the Buffer that was sent.
  webhooks.removeAllContentTypeParsers();
  webhooks.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: DEFAULT_MAX_BODY_BYTES }, (_request, body, done) => done(null, body));
  // Every method, so that a GET gets the receiver's 405 answer.
  webhooks.all('/webhooks/session-events/:token', async (request, reply) => {
    const answer = await receiver.answer({ method: request.method, url: request.url, headers: request.headers, body: request.body as Buffer | undefined });
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
});
app.get('/healthz', async () => ({ ok: true }));

await app.listen({ port, host: '127.0.0.1' });
console.log(JSON.stringify({ msg: 'listening', port }));

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void app
      .close()
      .then(() => receiver.close())
      .then(() => process.exit(0));
  });
}
