/**
 * The servers the bench loads, each on 127.0.0.1 port 0: the reference server (memory and
 * Redis stores), a bare express baseline, the webhook receiver (memory and Redis stores) and a
 * bare node:http baseline.
 */
import express from 'express';
import { createMemoryEventStore, createWebhookReceiver } from '../client/webhooks/index.js';
import { createRedisEventStore } from '../client/webhooks/redis/index.js';
import { createApp } from '../server/app.js';
import { createMemorySessionStore } from '../server/sessions/memory-session-store.js';
import { createRedisClient, waitUntilReady } from '../server/sessions/redis-client.js';
import { createRedisSessionStore } from '../server/sessions/redis-session-store.js';
import type { SessionStore } from '../server/sessions/session-store.js';
import { listen, type Listening } from '../test/helpers/listen.js';

/** A started target: its base URL and how to stop everything it started. */
export interface Target extends Listening {
  stop(): Promise<void>;
}

/** The key the bench sends to the reference server. */
export const BENCH_KEY = 'bench-key';

async function referenceServer(store: SessionStore, cleanup: () => Promise<void>): Promise<Target> {
  // One running session: the steady-state resume path ends in 409 not_paused after auth,
  // request validation, the store call and response validation.
  await store.seed([{ id: 'bench_running', status: 'running' }]);
  const server = await listen(await createApp({ store, apiKeys: [BENCH_KEY] }));
  return { ...server, stop: async () => (await server.close(), await cleanup()) };
}

/** The reference server on the in-memory store. */
export const startMemoryReferenceServer = (): Promise<Target> => referenceServer(createMemorySessionStore(), async () => undefined);

/** The reference server on Redis at `redisUrl`. */
export async function startRedisReferenceServer(redisUrl: string): Promise<Target> {
  const client = createRedisClient(redisUrl);
  await waitUntilReady(client);
  return referenceServer(createRedisSessionStore({ client, keyPrefix: 'bench:' }), async () => void (await client.quit()));
}

/** Baseline: bare express answering the same 409 JSON, no validator, no auth, no store. */
export async function startBareExpress(): Promise<Target> {
  const app = express();
  app.post('/v1/sessions/:id/resume', (_req, res) => {
    res.status(409).json({ success: false, error: 'not_paused', message: 'Session is not paused (not_paused).' });
  });
  const server = await listen(app);
  return { ...server, stop: () => server.close() };
}

/** The webhook receiver kit with a no-op onEvent on `store` ('memory', or a Redis URL). */
export async function startReceiver(store: 'memory' | { redisUrl: string }): Promise<Target> {
  const receiver = createWebhookReceiver({
    store: store === 'memory' ? createMemoryEventStore() : createRedisEventStore({ url: store.redisUrl, prefix: 'bench' }),
    onEvent: async () => undefined,
  });
  const server = await listen(receiver.handler);
  return { ...server, stop: async () => (await server.close(), await receiver.close()) };
}

/** Baseline: bare node:http reading the body and answering 200. */
export async function startBareHttp(): Promise<Target> {
  const server = await listen((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'));
  });
  return { ...server, stop: () => server.close() };
}
