/**
 * Receiver targets for bench/receiver-baseline.ts: the receiver a user would write by hand
 * with the kit's promise (answer after a durable record, dedupe across instances): express +
 * `standardwebhooks` verify + ioredis `SET NX EX` + BullMQ `Queue.add`, with a BullMQ
 * `Worker` processing in the same process as the kit's does; the kit on Redis with the same
 * secret; and the kit's two adapters on the memory store, `receiver.handler` on node:http and
 * `receiver.fetch` through Hono on @hono/node-server.
 */
import { createHash } from 'node:crypto';
import { serve } from '@hono/node-server';
import { Queue, Worker } from 'bullmq';
import express from 'express';
import { Hono } from 'hono';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { createMemoryEventStore, createWebhookReceiver, type WebhookReceiver } from '../client/webhooks/index.js';
import { createRedisEventStore } from '../client/webhooks/redis/index.js';
import { listen } from '../test/helpers/listen.js';
import type { Target } from './target.js';

/** The secret every signed bench delivery is signed with (bench/receiver-baseline.ts signs). */
export const BENCH_WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 42).toString('base64')}`;

let instances = 0;
const prefixOf = (label: string) => `bench-${label}-${process.pid}-${++instances}`;

/** The hand-written receiver: verify, SET NX EX for dedupe, Queue.add, 200; a Worker processes. */
export async function startHandWrittenReceiver(redisUrl: string): Promise<Target> {
  const prefix = prefixOf('hand');
  const redis = new Redis(redisUrl);
  const queueConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const workerConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue('events', { connection: queueConnection, prefix });
  const worker = new Worker('events', async () => undefined, { connection: workerConnection, prefix });
  const webhook = new Webhook(BENCH_WEBHOOK_SECRET);
  const app = express();
  app.post('/', express.raw({ type: '*/*' }), async (req, res) => {
    let event: { event?: string; session?: { id?: string }; timestamp?: string };
    try {
      event = webhook.verify(req.body as Buffer, req.headers as Record<string, string>) as typeof event;
    } catch {
      res.status(401).json({ success: false, error: 'unauthorized' });
      return;
    }
    const key = createHash('sha256')
      .update(JSON.stringify([event.event, event.session?.id, event.timestamp]))
      .digest('hex');
    try {
      const first = (await redis.set(`${prefix}:seen:${key}`, '1', 'EX', 3600, 'NX')) === 'OK';
      if (first) await queue.add('event', event, { jobId: key, removeOnComplete: true, attempts: 5, backoff: { type: 'exponential', delay: 1000 } });
      res.json({ received: true, duplicate: !first });
    } catch {
      res.status(503).json({ success: false, error: 'service_unavailable' });
    }
  });
  const server = await listen(app);
  return {
    ...server,
    stop: async () => {
      await server.close();
      await worker.close();
      await queue.close();
      redis.disconnect();
      queueConnection.disconnect();
      workerConnection.disconnect();
    },
  };
}

const kit = (store: 'memory' | string, secret?: string): WebhookReceiver =>
  createWebhookReceiver({
    store: store === 'memory' ? createMemoryEventStore() : createRedisEventStore({ url: store, prefix: prefixOf('kit') }),
    ...(secret ? { secret } : {}),
    onEvent: async () => undefined,
  });

/** The kit on Redis verifying the bench secret, served by node:http. */
export async function startSignedKitReceiver(redisUrl: string): Promise<Target> {
  const receiver = kit(redisUrl, BENCH_WEBHOOK_SECRET);
  const server = await listen(receiver.handler);
  return { ...server, stop: async () => (await server.close(), await receiver.close()) };
}

/** `receiver.fetch` through Hono on @hono/node-server, memory store. */
export async function startHonoFetchReceiver(): Promise<Target> {
  const receiver = kit('memory');
  const app = new Hono();
  app.all('/', (c) => receiver.fetch(c.req.raw));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as { port: number };
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${port}`, close, stop: async () => (await close(), await receiver.close()) };
}
