/**
 * A Next.js App Router route handler: POST https://<your-app>/api/webhooks/<WEBHOOK_URL_TOKEN>.
 * The receiver is created once per server instance (module scope); `receiver.fetch` reads the
 * raw body itself, so never call `request.json()` before it. The memory store runs in either
 * Next.js runtime; for several instances (a serverless deployment runs many) use
 * `createRedisEventStore` from 'session-resume-api/webhooks/redis' in the Node.js runtime.
 */
import { createMemoryEventStore, createWebhookReceiver } from 'session-resume-api/webhooks';

// Processing runs after the answer: it needs a process that lives on (the Node.js runtime).
export const runtime = 'nodejs';

const urlToken = process.env.WEBHOOK_URL_TOKEN;
if (!urlToken) throw new Error('Set WEBHOOK_URL_TOKEN to a long random string (32 random bytes, base64url).');

const receiver = createWebhookReceiver({
  store: createMemoryEventStore(),
  urlToken,
  // Several secrets, comma-separated, during a rotation: a delivery signed with any of them passes.
  ...(process.env.WEBHOOK_SECRET ? { secret: process.env.WEBHOOK_SECRET.split(',') } : {}),
  onEvent: async (event, { attempt }) => {
    console.log(JSON.stringify({ msg: 'session event', event: event.event, sessionId: event.session?.id, timestamp: event.timestamp, attempt }));
  },
});

export const POST = (request: Request) => receiver.fetch(request);
// Other methods get the receiver's 405 answer.
export const GET = POST;
