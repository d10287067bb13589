/** The test cluster helper itself: it forms a usable cluster, fails over when a primary dies, and stops cleanly. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { clusterSeeds, startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { pingRedis } from '../../helpers/redis-server.js';

describe('startRedisCluster', () => {
  let cluster: RedisCluster;
  let client: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 1 });
    client = new Cluster(clusterSeeds(cluster.nodes), { clusterRetryStrategy: (times) => Math.min(100 * times, 500) });
  });
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('starts 3 primaries and 3 replicas that serve keys on every primary', async () => {
    expect(cluster.nodes).toHaveLength(6);
    expect(await cluster.primaries()).toHaveLength(3);
    const keys = Array.from({ length: 30 }, (_, i) => `k${i}`);
    await Promise.all(keys.map((k) => client.set(k, k)));
    const owners = new Set(await Promise.all(keys.map(async (k) => (await cluster.primaryFor(k)).port)));
    expect(owners.size).toBe(3);
    expect(await Promise.all(keys.map((k) => client.get(k)))).toEqual(keys);
  });

  it('promotes a replica when a primary is killed, and the old primary rejoins', async () => {
    const killed = await cluster.killPrimary('k1');
    await cluster.waitUntilOk();
    const now = await cluster.primaryFor('k1');
    expect(now.port).not.toBe(killed.port);
    await cluster.restartNode(killed);
    await cluster.waitUntilOk();
    expect((await cluster.primaries()).map((n) => n.port)).not.toContain(killed.port);
  });

  it('stop() ends every node', async () => {
    const other = await startRedisCluster({ primaries: 3 });
    await other.stop();
    const answers = await Promise.all(other.nodes.map((n) => pingRedis(`redis://${n}`)));
    expect(answers).toEqual([false, false, false]);
  });
});
