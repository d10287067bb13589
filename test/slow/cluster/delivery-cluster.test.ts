/**
 * Redis delivery (durable) on a private 3-primary Redis Cluster (REDIS_CLUSTER_NODES): two
 * server instances, resumes spread over both, and every event delivered, signed, with one
 * webhook-id per event (BullMQ on a Cluster connection, its keys under the `{outbox}` tag).
 */
import { afterAll, expect, it } from 'vitest';
import {
  deliveriesFor,
  postResume,
  serverEnv,
  startHttpsReceiver,
  startServerProcess,
  writeFixtures,
  type HttpsReceiver,
  type ServerProcess,
} from '../../helpers/delivery-fixture.js';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { waitFor } from '../../helpers/wait-for.js';

let cluster: RedisCluster | undefined;
let receiver: HttpsReceiver | undefined;
const servers: ServerProcess[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop('SIGKILL')));
  await receiver?.close();
  await cluster?.stop();
});

it("two instances on a cluster deliver every resume's event, each with one webhook-id", async () => {
  cluster = await startRedisCluster({ primaries: 3 });
  receiver = await startHttpsReceiver();
  const ids = Array.from({ length: 30 }, (_, i) => `oc-${i}`);
  const files = writeFixtures(receiver, ids);
  const { REDIS_URL: _unused, ...env } = serverEnv('redis://unused', receiver, files);
  const clusterEnv = { ...env, REDIS_CLUSTER_NODES: cluster.nodes.join(',') };
  servers.push(...(await Promise.all([startServerProcess(clusterEnv), startServerProcess(clusterEnv)])));
  const statuses = await Promise.all(ids.map((id, i) => postResume(servers[i % 2]!.url, id).then((r) => r.status)));
  expect(statuses.every((s) => s === 200)).toBe(true);
  await waitFor(() => ids.every((id) => deliveriesFor(receiver!, id).length >= 1), {
    timeoutMs: 30_000,
    what: 'one delivery per resumed session',
  });
  const webhookIds = ids.map((id) => new Set(deliveriesFor(receiver!, id).map((d) => d.headers['webhook-id'])));
  expect(webhookIds.every((set) => set.size === 1)).toBe(true);
  expect(new Set(webhookIds.map((set) => [...set][0])).size).toBe(ids.length);
}, 90_000);
