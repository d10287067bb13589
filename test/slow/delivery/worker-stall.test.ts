/**
 * A worker stall shorter than the delivery timeout: two instances on one Redis (own
 * redis-server) deliver to a receiver that answers after 1 s; one instance is stopped (SIGSTOP)
 * for 5 s while it holds deliveries, then continued. No event may be delivered twice: the
 * stalled instance's job locks outlast the stall, so the other instance never takes its jobs,
 * and an answer that arrived during the stall counts when the instance wakes. Loopback only.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { countBy } from '../../helpers/receiver-processes.js';
import {
  deliveriesFor,
  postResume,
  serverEnv,
  startHttpsReceiver,
  startPrivateRedis,
  startServerProcess,
  writeFixtures,
  type HttpsReceiver,
  type ServerProcess,
} from '../../helpers/delivery-fixture.js';
import { waitFor } from '../../helpers/wait-for.js';

const SESSIONS = Array.from({ length: 60 }, (_, i) => `stall_${i}`);
const STALL_MS = 5000;

let redis: Awaited<ReturnType<typeof startPrivateRedis>> | undefined;
let receiver: HttpsReceiver | undefined;
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const s of servers) process.kill(s.pid, 'SIGCONT');
  await Promise.all(servers.map((s) => s.stop('SIGKILL')));
  await receiver?.close();
  await redis?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('an instance stopped for 5 s while it holds deliveries: no event is delivered twice', async () => {
  redis = await startPrivateRedis();
  receiver = await startHttpsReceiver(async (_request, res) => {
    await sleep(1000);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true,"duplicate":false}');
  });
  const files = writeFixtures(receiver, SESSIONS);
  for (let i = 0; i < 2; i++) servers.push(await startServerProcess(serverEnv(redis.url, receiver, files)));
  const [victim] = servers as [ServerProcess, ServerProcess];

  // Each resume with a key, retried on a 503 (a busy machine may answer one) until it is applied.
  const resume = async (id: string, i: number) => {
    const key = randomUUID();
    for (let attempt = 0; ; attempt++) {
      const { status } = await postResume(servers[(i + attempt) % 2]!.url, id, key);
      if (status !== 503 || attempt >= 20) return status;
    }
  };
  const answers = await Promise.all(SESSIONS.map(resume));
  expect(answers).toEqual(SESSIONS.map(() => 200));
  // Both workers hold deliveries (each waits 1 s for its answer): stop one of them now.
  await waitFor(() => receiver!.requests.length >= 10, { what: 'deliveries under way' });
  process.kill(victim.pid, 'SIGSTOP');
  await sleep(STALL_MS);
  process.kill(victim.pid, 'SIGCONT');

  await waitFor(() => SESSIONS.every((id) => deliveriesFor(receiver!, id).length > 0), { what: 'every session delivered', timeoutMs: 30_000 });
  // Long enough for a lapsed lock to be noticed (lock plus two stalled checks) and its job delivered again.
  await sleep(12_000);
  const ids = receiver.requests.map((r) => String(r.headers['webhook-id']));
  const twice = [...countBy(ids)].filter(([, n]) => n > 1);
  console.info(`worker-stall: ${ids.length} deliveries of ${SESSIONS.length} events, ${twice.length} delivered more than once`);
  if (twice.length > 0) console.info(servers.map((s) => s.output().slice(-3000)).join('\n----\n'));
  expect(twice).toEqual([]);
}, 90_000);
