/**
 * Redis down during requests (issue #3): 503 in the Error shape within 2 s, /healthz 503,
 * and recovery without a restart. Uses a private redis-server, never the shared one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { contract } from '@session-resume-api/runtime/contract';
import { createApp } from '../../../server/app.js';
import { createRedisRateLimitStore } from '../../../server/http/redis-rate-limit-store.js';
import { createRedisClient } from '../../../server/redis/redis-client.js';
import { waitUntilConnected } from '../../../server/redis/create-redis-connection.js';
import { createRedisSessionStore } from '../../../server/sessions/redis-session-store.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { listen, type Listening } from '../../helpers/listen.js';
import { waitFor } from '../../helpers/wait-for.js';

const API_KEY = 'outage-key';
let redis: RedisServer;
let client: Redis;
let server: Listening;

beforeAll(async () => {
  redis = await startRedisServer();
  client = createRedisClient(redis.url, { maxReconnectDelayMs: 200 });
  await waitUntilConnected(client);
  const store = createRedisSessionStore({ client });
  await store.seed([{ id: 'p1', status: 'paused' }]);
  const app = await createApp({
    store,
    apiKeys: [API_KEY],
    // High limit: only the Redis counting matters here, not the 429.
    rateLimit: { limit: 1000, windowMs: 60_000, store: createRedisRateLimitStore(client) },
  });
  server = await listen(app);
});

afterAll(async () => {
  await server?.close();
  client?.disconnect();
  await redis?.stop();
});

const resume = (id: string) => fetch(`${server.url}/v1/sessions/${id}/resume`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` } });

describe('Redis down and back', () => {
  it('answers 503 within 2 s while Redis is down, and recovers without a restart', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    await redis.stop();

    const started = performance.now();
    const down = await resume('p1');
    const elapsed = performance.now() - started;
    expect(down.status).toBe(503);
    expect(elapsed).toBeLessThan(2000); // the bound, generous on purpose
    const body = await down.json();
    expect(contract.validate('Error', body)).toMatchObject({ ok: true });
    expect(body.error).toBe('service_unavailable');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(503);

    await redis.restart();
    await waitFor(async () => (await fetch(`${server.url}/healthz`)).status === 200, { what: 'healthz 200 after restart' });
    // The restarted Redis has no persistence, so it is empty: the id is unknown now.
    expect((await resume('p1')).status).toBe(404);
  });

  it('answers 503 within 2 s when Redis accepts the connection but does not answer (paused process)', async () => {
    await waitFor(async () => (await fetch(`${server.url}/healthz`)).status === 200, { what: 'healthz 200' });
    await client.call('CLIENT', 'PAUSE', '3000', 'ALL');
    const started = performance.now();
    const res = await resume('p1');
    const elapsed = performance.now() - started;
    expect(res.status).toBe(503);
    expect(elapsed).toBeLessThan(2000);
    await waitFor(async () => (await resume('p1')).status === 404, { what: 'answers after the pause' });
  });
});
