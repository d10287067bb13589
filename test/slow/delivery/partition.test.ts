/**
 * A silent partition between one server instance and Redis. Three instances share a private
 * redis-server; one reaches it through a pausable TCP proxy and is cut off for 5 s (sockets
 * open, nothing forwarded, everything buffered and forwarded after the heal) while resumes with
 * and without Idempotency-Key arrive over all three, and the deliveries under way wait 1 s for
 * the receiver. A careful client retries every 503 (or lost answer) on the next instance, with
 * the same key when it has one. What must hold: at most one flip per session, every flip
 * delivered exactly once, no 500, and the cut instance's /healthz answers 503 while cut and
 * 200 again soon after the heal. Loopback only.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { redisKeys } from '../../../server/redis/redis-keys.js';
import { startPausableProxy, type PausableProxy } from '../../helpers/pausable-proxy.js';
import { countBy } from '../../helpers/receiver-processes.js';
import {
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
import { Redis } from 'ioredis';

const SESSIONS = Array.from({ length: 120 }, (_, i) => `part_${i}`);
const RATE_PER_SECOND = 15;
const BEFORE_MS = 1500;
const CUT_MS = 5000;

let redis: Awaited<ReturnType<typeof startPrivateRedis>> | undefined;
let proxy: PausableProxy | undefined;
let receiver: HttpsReceiver | undefined;
let admin: Redis | undefined;
const servers: ServerProcess[] = [];
afterAll(async () => {
  proxy?.resume();
  admin?.disconnect();
  await Promise.all(servers.map((s) => s.stop('SIGKILL')));
  await receiver?.close();
  await proxy?.close();
  await redis?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The careful client: instance `first`, then the next, on a 503 or no answer; the final status. */
async function resume(id: string, first: number, keyed: boolean, statuses: number[]): Promise<number> {
  const key = keyed ? randomUUID() : undefined;
  for (let attempt = 0; attempt < 12; attempt++) {
    const status = await Promise.race([
      postResume(servers[(first + attempt) % servers.length]!.url, id, key).then((a) => a.status),
      sleep(4000).then(() => 0),
    ]).catch(() => 0);
    statuses.push(status);
    if (status !== 503 && status !== 0) return status;
    await sleep(100);
  }
  return 0;
}

/** GET /healthz of `url`: its status, or 0 without an answer within 3 s. */
const health = (url: string) =>
  fetch(`${url}/healthz`, { signal: AbortSignal.timeout(3000) }).then(
    (r) => r.status,
    () => 0,
  );

it('an instance cut from Redis for 5 s: at most one flip per session, each delivered once, no 500, /healthz 503 then 200', async () => {
  redis = await startPrivateRedis();
  proxy = await startPausableProxy({ host: '127.0.0.1', port: redis.port });
  receiver = await startHttpsReceiver(async (_request, res) => {
    await sleep(1000);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true,"duplicate":false}');
  });
  const files = writeFixtures(receiver, SESSIONS);
  const cutUrl = `redis://127.0.0.1:${proxy.port}`;
  for (const url of [cutUrl, redis.url, redis.url]) servers.push(await startServerProcess(serverEnv(url, receiver, files)));
  const [cut] = servers as [ServerProcess];

  const statuses: number[] = [];
  const finals: Array<Promise<number>> = [];
  const started = Date.now();
  let healthWhileCut = -1;
  let healedAfterMs = -1;
  for (let n = 0; n < SESSIONS.length; n++) {
    await sleep(Math.max(0, started + (n * 1000) / RATE_PER_SECOND - Date.now()));
    if (n === Math.round((BEFORE_MS / 1000) * RATE_PER_SECOND)) {
      proxy.pause();
      void sleep(CUT_MS / 2).then(async () => (healthWhileCut = await health(cut.url)));
      void sleep(CUT_MS).then(async () => {
        proxy!.resume();
        const healedAt = Date.now();
        await waitFor(async () => (await health(cut.url)) === 200, { timeoutMs: 10_000, intervalMs: 20, what: 'the cut instance healthy again' });
        healedAfterMs = Date.now() - healedAt;
      });
    }
    finals.push(resume(SESSIONS[n]!, n % servers.length, n % 2 === 0, statuses));
  }
  const final = await Promise.all(finals);
  await waitFor(() => healedAfterMs >= 0, { timeoutMs: 15_000, what: 'the heal measured' });
  console.info(
    `server-partition: ${statuses.length} answers (${statuses.filter((s) => s === 503).length} × 503, ${statuses.filter((s) => s === 0).length} lost); /healthz while cut ${healthWhileCut}, 200 again ${healedAfterMs} ms after the heal`,
  );
  expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);
  expect(final.every((s) => s === 200 || s === 409)).toBe(true);
  expect(healthWhileCut).toBe(503);
  expect(healedAfterMs).toBeLessThan(5000);

  // Every flipped session is delivered; then long enough for a lapsed lock's job to be delivered again.
  admin = new Redis(redis.url);
  const keys = redisKeys('session-resume:');
  const flipped = (await Promise.all(SESSIONS.map(async (id) => ((await admin!.hget(keys.session(id), 'status')) === 'running' ? id : undefined)))).filter(
    Boolean,
  );
  const sessionOf = (body: string) => (JSON.parse(body) as { session: { id: string } }).session.id;
  await waitFor(() => flipped.every((id) => receiver!.requests.some((r) => sessionOf(r.body) === id)), { timeoutMs: 30_000, what: 'every flip delivered' });
  await sleep(10_000);
  const perId = countBy(receiver.requests.map((r) => String(r.headers['webhook-id'])));
  const idsPerSession = countBy(
    [...new Set(receiver.requests.map((r) => `${sessionOf(r.body)} ${String(r.headers['webhook-id'])}`))].map((s) => s.split(' ')[0]!),
  );
  console.info(
    `server-partition: ${flipped.length} sessions flipped, ${receiver.requests.length} deliveries, ${[...perId.values()].filter((n) => n > 1).length} events delivered more than once`,
  );
  expect([...idsPerSession.values()].filter((n) => n > 1)).toEqual([]);
  expect(flipped.length).toBe(SESSIONS.length);
  expect([...perId].filter(([, n]) => n > 1)).toEqual([]);
}, 120_000);
