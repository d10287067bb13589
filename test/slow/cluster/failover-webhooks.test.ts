/**
 * Failover of the primary that holds the `{outbox}` slot (the outbox's intents and the BullMQ
 * queue of Redis delivery) under load, 3 primaries + 3 replicas, two server instances with webhooks on: every
 * resume answered 200 still gets its `session.resumed` delivered, with one webhook-id.
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

it('no acknowledged resume loses its webhook when the primary of the `{outbox}` slot fails over', async () => {
  cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 1, nodeTimeoutMs: 1000 });
  receiver = await startHttpsReceiver();
  const ids = Array.from({ length: 150 }, (_, i) => `fw-${i}`);
  const files = writeFixtures(receiver, ids);
  const { REDIS_URL: _unused, ...env } = serverEnv('redis://unused', receiver, files);
  const clusterEnv = { ...env, REDIS_CLUSTER_NODES: cluster.nodes.join(',') };
  servers.push(...(await Promise.all([startServerProcess(clusterEnv), startServerProcess(clusterEnv)])));

  const answers = new Map<string, number[]>();
  let next = 0;
  let killed = false;
  const worker = async () => {
    while (next < ids.length) {
      const n = next++;
      const id = ids[n]!;
      if (n === 50 && !killed) {
        killed = true;
        void cluster!.killPrimary('{outbox}');
      }
      const { status } = await postResume(servers[n % 2]!.url, id).catch(() => ({ status: 0 }));
      answers.set(id, [...(answers.get(id) ?? []), status]);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  await cluster.waitUntilOk(60_000);
  // Sessions whose answer was not a 200 are asked again after the failover, until they answer.
  await waitFor(
    async () => {
      const open = ids.filter((id) => !answers.get(id)!.some((s) => s === 200 || s === 409));
      for (const id of open) answers.get(id)!.push((await postResume(servers[0]!.url, id)).status);
      return open.length === 0;
    },
    { timeoutMs: 60_000, intervalMs: 500, what: 'every session answered after the failover' },
  );

  const acknowledged = ids.filter((id) => answers.get(id)!.includes(200));
  expect(acknowledged.length).toBeGreaterThan(0);
  await waitFor(() => acknowledged.every((id) => deliveriesFor(receiver!, id).length >= 1), {
    timeoutMs: 60_000,
    what: `a delivery for each of the ${acknowledged.length} acknowledged resumes`,
  });
  const webhookIds = acknowledged.map((id) => new Set(deliveriesFor(receiver!, id).map((d) => d.headers['webhook-id'])));
  expect(webhookIds.filter((set) => set.size !== 1)).toEqual([]);
  expect(ids.filter((id) => answers.get(id)!.filter((s) => s === 200).length > 1)).toEqual([]);
  console.info(
    `failover with webhooks: ${acknowledged.length} acknowledged resumes, all delivered; answers other than 200/409: ${[...answers.values()].flat().filter((s) => s !== 200 && s !== 409).length}`,
  );
}, 180_000);
