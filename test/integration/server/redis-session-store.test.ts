/** The shared store suite against Redis (random key prefix per test), plus Redis-only failure rules. */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createRedisClient } from '../../../server/redis/redis-client.js';
import { waitUntilConnected } from '../../../server/redis/create-redis-connection.js';
import { createRedisSessionStore } from '../../../server/sessions/redis-session-store.js';
import { StoreUnavailableError } from '../../../server/errors/store-errors.js';
import { startRedisServer } from '../../helpers/redis-server.js';
import { sessionStoreSuite } from '../../helpers/session-store-suite.js';
import { deletePrefix } from '../../helpers/redis-keys.js';

const clients: Redis[] = [];
const prefixes: string[] = [];

async function sharedClient(): Promise<Redis> {
  const client = createRedisClient(inject('redisUrl'));
  clients.push(client);
  await waitUntilConnected(client);
  return client;
}

afterAll(async () => {
  for (const prefix of prefixes) await deletePrefix(inject('redisUrl'), prefix);
  await Promise.all(clients.map((c) => c.quit()));
});

sessionStoreSuite('redis', async (now) => {
  const keyPrefix = `test:${randomUUID()}:`;
  prefixes.push(keyPrefix);
  return createRedisSessionStore({ client: await sharedClient(), keyPrefix, now });
});

describe('SessionStore: redis, across clients', () => {
  it('two clients (as two processes would) share one state: one resume wins', async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    prefixes.push(keyPrefix);
    const a = createRedisSessionStore({ client: await sharedClient(), keyPrefix });
    const b = createRedisSessionStore({ client: await sharedClient(), keyPrefix });
    await a.seed([{ id: 'hot', status: 'paused' }]);
    expect(await b.seed([{ id: 'hot', status: 'paused' }])).toEqual({ created: 0 });
    const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).resume('hot')));
    expect(outcomes.filter((o) => o.kind === 'resumed')).toHaveLength(1);
  });
});

describe('SessionStore: redis down', () => {
  it('throws StoreUnavailableError (with cause) while Redis is down, and works again after it is back', async () => {
    const redis = await startRedisServer();
    const client = createRedisClient(redis.url, { maxReconnectDelayMs: 200 });
    try {
      await waitUntilConnected(client);
      const store = createRedisSessionStore({ client });
      await store.seed([{ id: 's1', status: 'paused' }]);
      await redis.stop();
      const error = await store.resume('s1').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).cause).toBeInstanceOf(Error);
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      await redis.restart();
      await waitUntilConnected(client);
      // No persistence: the restarted Redis is empty, which is fine for this rule.
      expect(await store.resume('s1')).toEqual({ kind: 'not_found' });
    } finally {
      client.disconnect();
      await redis.stop();
    }
  });
});
