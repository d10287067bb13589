/** The shared SessionStore suite and the rate-limit store against a private 3-primary Redis Cluster. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisRateLimitStore } from '../../../server/http/redis-rate-limit-store.js';
import { createRedisConnection, isCluster, waitUntilConnected, type RedisConnection } from '../../../server/redis/create-redis-connection.js';
import { createRedisSessionStore } from '../../../server/sessions/redis-session-store.js';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { sessionStoreSuite } from '../../helpers/session-store-suite.js';

let cluster: RedisCluster;
let client: RedisConnection;

beforeAll(async () => {
  cluster = await startRedisCluster({ primaries: 3 });
  client = createRedisConnection({ clusterNodes: cluster.nodes.slice(0, 1) });
  await waitUntilConnected(client);
});

afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
});

sessionStoreSuite('redis cluster (3 primaries)', async (now) => createRedisSessionStore({ client, keyPrefix: `test:${randomUUID()}:`, now }));

describe('Redis Cluster connection', () => {
  it('is a Cluster found from one seed, and sessions spread over every primary', async () => {
    expect(isCluster(client)).toBe(true);
    const store = createRedisSessionStore({ client, keyPrefix: `test:${randomUUID()}:` });
    const ids = Array.from({ length: 60 }, (_, i) => `spread-${i}`);
    await store.seed(ids.map((id) => ({ id, status: 'paused' })));
    const outcomes = await Promise.all(ids.map((id) => store.resume(id)));
    expect(outcomes.every((o) => o.kind === 'resumed')).toBe(true);
    const keysPerPrimary = await Promise.all(
      (await cluster.primaries()).map(async (node) => {
        const direct = createRedisConnection({ url: `redis://${node.address}` });
        try {
          await waitUntilConnected(direct);
          return Number(await direct.dbsize());
        } finally {
          direct.disconnect();
        }
      }),
    );
    expect(keysPerPrimary.every((n) => n > 0)).toBe(true);
  });

  it('the rate-limit store counts one API key across calls on the cluster', async () => {
    const store = createRedisRateLimitStore(client, `test:${randomUUID()}:rate:`);
    store.init?.({ windowMs: 60_000 } as never);
    const hits = [];
    for (let i = 0; i < 3; i++) hits.push((await store.increment('key{with}braces')).totalHits);
    expect(hits).toEqual([1, 2, 3]);
    await store.decrement('key{with}braces');
    expect((await store.increment('key{with}braces')).totalHits).toBe(3);
  });
});
