/**
 * Durable delivery under crashes: three instances on one Redis, a receiver that answers 503
 * for its first DELIVERY_TEST_OUTAGE_MS (default 20 000 ms), 100 resumes spread over the
 * instances while 5 SIGKILL-and-restart cycles hit them. Every event must arrive, each with
 * one webhook-id on all its attempts. Own redis-server, loopback only.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { createSessionsClient, SessionsClientError, type ResumeOutcome } from '../../../client/index.js';
import {
  API_KEY,
  serverEnv,
  startHttpsReceiver,
  startPrivateRedis,
  startServerProcess,
  writeFixtures,
  type HttpsReceiver,
  type ServerProcess,
} from '../../helpers/delivery-fixture.js';
import { waitFor } from '../../helpers/wait-for.js';

const OUTAGE_MS = Number(process.env.DELIVERY_TEST_OUTAGE_MS ?? 20_000);
const SESSIONS = Array.from({ length: 100 }, (_, i) => `crash_${i}`);
// Attempts span about 40 s: longer than the outage plus a stalled job's takeover (about 8 s).
const SCHEDULE = '0,1s,2s,3s,4s,5s,5s,5s,5s,5s,5s';

let redis: Awaited<ReturnType<typeof startPrivateRedis>> | undefined;
let receiver: HttpsReceiver | undefined;
const servers: ServerProcess[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop('SIGKILL')));
  await receiver?.close();
  await redis?.stop();
});

/** Resumes with one key, trying the instances in turn until one answers. */
async function resumeAnywhere(sessionId: string, start: number): Promise<ResumeOutcome> {
  const key = randomUUID();
  for (let attempt = 0; attempt < 60; attempt++) {
    const server = servers[(start + attempt) % servers.length]!;
    try {
      const client = createSessionsClient({ baseUrl: server.url, apiKey: API_KEY, maxRetries: 0, timeoutMs: 5000 });
      const outcome = await client.resume(sessionId, { idempotencyKey: key });
      if (outcome.status < 500) return outcome;
    } catch (error) {
      if (!(error instanceof SessionsClientError)) throw error;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no instance answered for ${sessionId}`);
}

it('100 events survive 5 SIGKILL-and-restart cycles of 3 instances and a 503 outage: all delivered, one webhook-id each', async () => {
  redis = await startPrivateRedis();
  const started = Date.now();
  receiver = await startHttpsReceiver((_request, res) => {
    const status = Date.now() - started < OUTAGE_MS ? 503 : 200;
    res.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? '{"received":true}' : '{}');
  });
  const files = writeFixtures(receiver, SESSIONS);
  const env = serverEnv(redis.url, receiver, files, { WEBHOOK_RETRY_SCHEDULE: SCHEDULE });
  for (let i = 0; i < 3; i++) servers.push(await startServerProcess(env));

  const killer = (async () => {
    for (let cycle = 0; cycle < 5; cycle++) {
      await new Promise((r) => setTimeout(r, 700));
      const index = cycle % 3;
      await servers[index]!.stop('SIGKILL');
      servers[index] = await startServerProcess(env);
    }
  })();
  const outcomes: ResumeOutcome[] = [];
  for (let batch = 0; batch < 10; batch++) {
    const ids = SESSIONS.slice(batch * 10, batch * 10 + 10);
    outcomes.push(...(await Promise.all(ids.map((id, i) => resumeAnywhere(id, batch + i)))));
    await new Promise((r) => setTimeout(r, 300));
  }
  await killer;
  expect(outcomes.map((o) => o.kind).filter((k) => k !== 'resumed')).toEqual([]);

  const delivered = () => {
    const ok = new Set<string>();
    for (const r of receiver!.requests) if (r.receivedAt - started >= OUTAGE_MS) ok.add(r.body);
    return ok;
  };
  await waitFor(() => new Set([...delivered()].map((b) => (JSON.parse(b) as { session: { id: string } }).session.id)).size === 100, {
    timeoutMs: 120_000,
    intervalMs: 500,
    what: '100 delivered events',
  });
  const idsBySession = new Map<string, Set<string>>();
  for (const r of receiver.requests) {
    const sessionId = (JSON.parse(r.body) as { session: { id: string } }).session.id;
    const ids = idsBySession.get(sessionId) ?? new Set<string>();
    ids.add(String(r.headers['webhook-id']));
    idsBySession.set(sessionId, ids);
  }
  expect(idsBySession.size).toBe(100);
  expect([...idsBySession.values()].filter((ids) => ids.size !== 1)).toEqual([]);
  const allIds = new Set([...idsBySession.values()].flatMap((ids) => [...ids]));
  expect(allIds.size).toBe(100);
  console.info(`crash-delivery: ${receiver.requests.length} requests for 100 events, ${Date.now() - started} ms`);
}, 300_000);
