/**
 * Exactly-once resume while Redis stalls (kill -STOP for 1.5 s): the answer a timed-out
 * command would have given is recorded with the Idempotency-Key, so the client's retry learns
 * it. Own redis-server, loopback only.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createSessionsClient } from '../../../client/index.js';
import {
  API_KEY,
  deliveriesFor,
  postResume,
  SECRET,
  serverEnv,
  startHttpsReceiver,
  startPrivateRedis,
  startServerProcess,
  writeFixtures,
  type HttpsReceiver,
  type ServerProcess,
} from '../../helpers/delivery-fixture.js';
import { waitFor } from '../../helpers/wait-for.js';

const STALL_MS = 1500;
let redis: Awaited<ReturnType<typeof startPrivateRedis>>;
let receiver: HttpsReceiver;
const servers: ServerProcess[] = [];

/** Stops Redis now; the returned promise resolves once it runs again, STALL_MS later. */
const stall = async (): Promise<{ resumed: Promise<void> }> => {
  const pid = await redis.pid();
  process.kill(pid, 'SIGSTOP');
  const resumed = new Promise<void>((resolve) =>
    setTimeout(() => {
      process.kill(pid, 'SIGCONT');
      resolve();
    }, STALL_MS),
  );
  return { resumed };
};

beforeAll(async () => {
  redis = await startPrivateRedis();
  receiver = await startHttpsReceiver();
  const files = writeFixtures(receiver, ['stall_client', 'stall_many']);
  for (let i = 0; i < 2; i++) servers.push(await startServerProcess(serverEnv(redis.url, receiver, files)));
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop('SIGKILL')));
  await receiver?.close();
  await redis?.stop();
});

describe('resume during a 1.5 s Redis stall', () => {
  it('client.resume() with default options ends resumed, and exactly one signed session.resumed is delivered', async () => {
    const client = createSessionsClient({ baseUrl: servers[0]!.url, apiKey: API_KEY });
    const { resumed } = await stall();
    const outcome = await client.resume('stall_client');
    await resumed;
    console.info(`redis-stall: client.resume() -> ${outcome.kind} after ${outcome.attempts} attempts`);
    expect(outcome.kind).toBe('resumed');
    await waitFor(() => deliveriesFor(receiver, 'stall_client').length > 0, { timeoutMs: 20_000, what: 'the delivery' });
    // Give a duplicate (a late script, a relay re-add) every chance to arrive: 3 relay passes.
    await new Promise((r) => setTimeout(r, 3000));
    const delivered = deliveriesFor(receiver, 'stall_client');
    expect(delivered).toHaveLength(1);
    const { headers, body } = delivered[0]!;
    const verified = new Webhook(SECRET).verify(body, headers as Record<string, string>);
    expect(verified).toMatchObject({ event: 'session.resumed', session: { id: 'stall_client' } });
  }, 60_000);

  it('200 concurrent resumes with distinct keys over two instances: at most one 200, then exactly one resumed on retry', async () => {
    const keys = Array.from({ length: 200 }, () => randomUUID());
    const { resumed } = await stall();
    const first = await Promise.all(keys.map((key, i) => postResume(servers[i % 2]!.url, 'stall_many', key)));
    await resumed;
    const counts = first.reduce<Record<number, number>>((c, a) => ({ ...c, [a.status]: (c[a.status] ?? 0) + 1 }), {});
    console.info(`redis-stall: first round statuses ${JSON.stringify(counts)}`);
    expect(first.filter((a) => a.status === 200).length).toBeLessThanOrEqual(1);
    expect(first.every((a) => [200, 409, 503].includes(a.status))).toBe(true);
    const outcomes = await Promise.all(
      keys.map((key, i) => createSessionsClient({ baseUrl: servers[i % 2]!.url, apiKey: API_KEY }).resume('stall_many', { idempotencyKey: key })),
    );
    const kinds = outcomes.map((o) => o.kind);
    expect(kinds.filter((k) => k === 'resumed')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'not_paused')).toHaveLength(199);
    await waitFor(() => deliveriesFor(receiver, 'stall_many').length > 0, { timeoutMs: 20_000, what: 'the delivery' });
    await new Promise((r) => setTimeout(r, 3000));
    expect(deliveriesFor(receiver, 'stall_many')).toHaveLength(1);
  }, 90_000);
});
