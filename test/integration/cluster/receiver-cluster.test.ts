/**
 * The receiver kit's Redis store on a private 3-primary Redis Cluster: the shared receiver
 * store suite; a Cluster instance passed in; three receiver instances given 400 deliveries
 * of 200 distinct events (each twice, concurrently, spread over the instances) run the
 * handler exactly 200 times.
 */
import { randomBytes } from 'node:crypto';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookReceiver, type SessionEvent } from '../../../client/webhooks/index.js';
import { createRedisEventStore } from '../../../client/webhooks/redis/index.js';
import { listen, type Listening } from '../../helpers/listen.js';
import { clusterSeeds, startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { receiverStoreSuite, sleep } from '../../helpers/receiver-store-suite.js';
import { waitFor } from '../../helpers/wait-for.js';

let cluster: RedisCluster;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  cluster = await startRedisCluster({ primaries: 3 });
}, 60_000);
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await cluster?.stop();
});

const prefix = (label: string) => `test-${label}-${randomBytes(4).toString('hex')}`;

receiverStoreSuite('redis cluster (3 primaries)', () => createRedisEventStore({ clusterNodes: cluster.nodes, prefix: prefix('suite') }));

describe('receiver on Redis Cluster', () => {
  it('takes an ioredis Cluster instance (duplicated, left open for its owner)', async () => {
    const client = new Cluster(clusterSeeds(cluster.nodes.slice(0, 1)));
    const seen: string[] = [];
    const receiver = createWebhookReceiver({
      store: createRedisEventStore({ client, prefix: prefix('client') }),
      onEvent: (e) => void seen.push(e.session?.id ?? ''),
    });
    const event: SessionEvent = { event: 'session.resumed', session: { id: 'sess_cluster_client' }, timestamp: new Date().toISOString() };
    expect((await receiver.receive(JSON.stringify(event))).body).toMatchObject({ duplicate: false });
    expect((await receiver.receive(JSON.stringify(event))).body).toMatchObject({ duplicate: true });
    await waitFor(() => seen.length === 1);
    await receiver.close();
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
  });

  it('three instances, 400 deliveries of 200 distinct events: the handler runs exactly 200 times', { timeout: 120_000 }, async () => {
    const shared = prefix('three');
    const runs: string[] = [];
    const servers: Listening[] = [];
    for (let i = 0; i < 3; i++) {
      const receiver = createWebhookReceiver({
        store: createRedisEventStore({ clusterNodes: cluster.nodes, prefix: shared, concurrency: 10 }),
        onEvent: (e) => void runs.push(e.session?.id ?? ''),
      });
      const server = await listen(receiver.handler);
      servers.push(server);
      closers.push(async () => (await server.close(), await receiver.close()));
    }
    const run = randomBytes(4).toString('hex');
    const events = Array.from({ length: 200 }, (_, i) => ({
      event: 'session.resumed',
      session: { id: `sess_${run}_${i}` },
      timestamp: new Date().toISOString(),
    }));
    // Each event twice, to two different instances, all 400 in flight in waves of 50.
    const deliveries = events.flatMap((event, i) => [
      { event, to: servers[i % 3]! },
      { event, to: servers[(i + 1) % 3]! },
    ]);
    deliveries.sort(() => Math.random() - 0.5);
    const answers: Array<{ status: number; duplicate?: boolean }> = [];
    for (let i = 0; i < deliveries.length; i += 50) {
      answers.push(
        ...(await Promise.all(
          deliveries.slice(i, i + 50).map(async ({ event, to }) => {
            const res = await fetch(to.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
            return { status: res.status, ...((await res.json()) as { duplicate?: boolean }) };
          }),
        )),
      );
    }
    expect(answers.filter((a) => a.status === 200)).toHaveLength(400);
    expect(answers.filter((a) => a.duplicate === false)).toHaveLength(200);
    await waitFor(() => runs.length >= 200, { timeoutMs: 60_000, what: '200 handler runs' });
    await sleep(1000);
    console.log(`receiver on Redis Cluster: 3 instances, ${deliveries.length} deliveries, ${events.length} distinct events → ${runs.length} handler runs`);
    expect(runs).toHaveLength(200);
    expect(new Set(runs).size).toBe(200);
  });
});
