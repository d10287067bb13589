/**
 * Redis paused (CLIENT PAUSE) and stopped under a running receiver process: answers are 503,
 * never a 200 for an event that is not recorded, and the same process answers 200 again once
 * Redis is back (x-decisions: webhook-ack). A private redis-server: the shared one is never
 * paused or stopped.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../client/webhooks/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { countBy, doneIds, startReceiverProcess, type ReceiverProcess } from '../helpers/receiver-processes.js';
import { waitFor } from '../helpers/wait-for.js';

let redis: RedisServer;
let proc: ReceiverProcess;
beforeAll(async () => {
  redis = await startRedisServer();
  // The job lock outlasts the 3 s pause: a lock that lapses while Redis is unreachable lets the
  // stalled check run a job again, the at-least-once case the README's Guarantees name.
  proc = await startReceiverProcess({ redisUrl: redis.url, prefix: 'outage', recordTimeoutMs: 500, stalledIntervalMs: 1000, lockDurationMs: 6000 });
});
afterAll(async () => {
  await proc?.kill('SIGKILL');
  await redis?.stop();
});

let n = 0;
const events = (count: number, label: string): SessionEvent[] =>
  Array.from({ length: count }, () => ({ event: 'session.resumed', session: { id: `sess_${label}_${++n}` }, timestamp: new Date().toISOString() }));

async function deliver(event: SessionEvent): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${proc.url}/hooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t0 };
}

const exactlyOnce = (ids: string[]) => {
  const counts = countBy(doneIds([proc]));
  return ids.map((id) => counts.get(id) ?? 0);
};

describe('receiver process while Redis is unavailable', () => {
  it('CLIENT PAUSE: 503 during the pause, 200 after; every event processed once', { timeout: 60_000 }, async () => {
    const before = events(5, 'before');
    expect((await Promise.all(before.map(deliver))).map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);

    const admin = new Redis(redis.url);
    await admin.call('CLIENT', 'PAUSE', '3000', 'ALL');
    const during = events(5, 'paused');
    const answers = await Promise.all(during.map(deliver));
    expect(answers.map((a) => a.status)).toEqual([503, 503, 503, 503, 503]);
    console.log(`503 under CLIENT PAUSE after ${Math.max(...answers.map((a) => a.ms)).toFixed(0)} ms (recordTimeoutMs 500)`);
    admin.disconnect();

    // The sender retries the 503s: accepted once Redis answers again (duplicate or first).
    await waitFor(async () => (await Promise.all(during.map(deliver))).every((a) => a.status === 200), { timeoutMs: 15_000 });
    const after = events(5, 'after');
    expect((await Promise.all(after.map(deliver))).map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const ids = [...before, ...during, ...after].map((e) => e.session.id);
    await waitFor(() => exactlyOnce(ids).every((c) => c >= 1), { timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 1000));
    expect(exactlyOnce(ids)).toEqual(ids.map(() => 1));
  });

  it('stopped: 503 while down, nothing recorded; the same process recovers after restart', { timeout: 60_000 }, async () => {
    const pid = proc.child.pid;
    await redis.stop();
    const down = events(5, 'down');
    const answers = await Promise.all(down.map(deliver));
    expect(answers.map((a) => a.status)).toEqual([503, 503, 503, 503, 503]);
    console.log(`503 with Redis stopped after ${Math.max(...answers.map((a) => a.ms)).toFixed(0)} ms`);
    await new Promise((r) => setTimeout(r, 500));
    expect(exactlyOnce(down.map((e) => e.session.id))).toEqual([0, 0, 0, 0, 0]);

    await redis.restart();
    // No receiver restart: the connections come back by themselves.
    await waitFor(async () => (await deliver(down[0]!)).status === 200, { timeoutMs: 20_000, intervalMs: 200 });
    expect((await Promise.all(down.map(deliver))).map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const ids = down.map((e) => e.session.id);
    await waitFor(() => exactlyOnce(ids).every((c) => c >= 1), { timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 1000));
    expect(exactlyOnce(ids)).toEqual([1, 1, 1, 1, 1]);
    expect(proc.child.pid).toBe(pid);
    expect(proc.child.exitCode).toBeNull();
  });
});
