/**
 * Recovery latency of the webhook endpoint (x-decisions: endpoint-health): a receiver answers
 * 503 while `events` session events are resumed, then 200 again. Measured from the moment it
 * answers 200 to its first delivery (the wait) and from then to an empty backlog (the drain),
 * for a 5 s blip (real time), a 4-minute and a 2-hour outage (an injected clock: the circuit's
 * probes follow it, the rest runs in real time), against plain `fetch` (the same events to the
 * same receiver, 50 in flight: the drain's ceiling) and a schedule-only sender (no circuit: the
 * retry schedule alone) in the same run. One Redis delivery instance (50 in flight), the
 * receiver (plain HTTP on loopback) and plain fetch share this process; the ratios are of one
 * run. The injected-clock rows reread the shared state every 50 ms instead of every second so
 * that a simulated outage of hours takes seconds; their waits are the injected clock's (the
 * probe schedule), plus the real time to the first delivery.
 *
 *   tsx bench/recovery.ts            (BENCH_RECOVERY_EVENTS, default 5000)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { createRedisClient } from '../server/redis/redis-client.js';
import { waitUntilConnected } from '../server/redis/create-redis-connection.js';
import { ENDPOINT_HEALTH_POLICY } from '../server/webhooks/endpoint-health-policy.js';
import { createRedisDelivery, type RedisDelivery } from '../server/webhooks/redis-delivery.js';
import { startRedisServer } from '../test/helpers/redis-server.js';

/** One row: the waits in ms and the drain as a share of plain fetch's rate. */
export interface RecoveryRow {
  outage: string;
  sender: string;
  /** From the receiver's first 200 to the first delivery, ms. */
  waitMs: number;
  /** From the first delivery to an empty backlog, ms. */
  drainMs: number;
  /** Events delivered per second from the first delivery, as a share of plain fetch's rate. */
  vsFetch: number;
  note?: string;
}

const SCHEDULE = WEBHOOK_DELIVERY_POLICY.retry.scheduleMs;

/** A receiver whose answer can change; counts the 200s and keeps when the first and the last came. */
async function startReceiver() {
  const state = { status: 503, delivered: new Set<string>(), failed: new Set<string>(), firstAt: 0, lastAt: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? randomUUID());
      if (state.status === 200) {
        const now = performance.now();
        if (state.delivered.size === 0) state.firstAt = now;
        state.delivered.add(id);
        state.lastAt = now;
      } else state.failed.add(id);
      res.writeHead(state.status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { state, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Plain fetch: `events` POSTs, 50 in flight; events per second. */
async function plainFetch(url: string, events: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  const body = (i: number) => JSON.stringify({ event: 'session.resumed', session: { id: `fetch_${i}` }, timestamp: new Date().toISOString() });
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < events) {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': `fetch_${next}` }, body: body(next++) });
        await res.arrayBuffer();
      }
    }),
  );
  return events / ((performance.now() - started) / 1000);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // A read that times out on a busy box is read again.
  while (!(await Promise.resolve(check()).catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`bench/recovery: timed out waiting for ${what}`);
    await sleep(5);
  }
}

interface Context {
  redisUrl: string;
  client: Redis;
  connection: Redis;
  events: number;
  fetchRate: number;
}

/** A delivery instance on a fresh prefix, its circuit on a clock that `freeze` stops and `jump` moves on from, or none. */
function startSender(ctx: Context, url: string, circuit: 'circuit' | 'none', refreshMs?: number) {
  const clock: { offset: number; frozen?: number | undefined } = { offset: 0 };
  const now = () => clock.frozen ?? Date.now() + clock.offset;
  const engine: RedisDelivery = createRedisDelivery({
    client: ctx.client,
    connection: ctx.connection,
    keyPrefix: `bench-recovery:${randomUUID()}:`,
    url,
    insecureLocalhost: true,
    allowPrivate: true,
    relay: false,
    logger: pino({ level: 'error' }),
    endpointHealth: circuit === 'none' ? false : { policy: { ...ENDPOINT_HEALTH_POLICY, ...(refreshMs ? { refreshMs } : {}) }, clock: now },
  });
  return {
    engine,
    freeze: (at: number) => (clock.frozen = at),
    jump: (to: number) => {
      clock.frozen = undefined;
      clock.offset = to - Date.now();
    },
  };
}

function enqueueAll(engine: RedisDelivery, events: number): string[] {
  const ids = Array.from({ length: events }, () => `msg_${randomUUID()}`);
  ids.forEach((id, i) => engine.enqueue({ id, payload: { event: 'session.resumed', session: { id: `recovery_${i}` }, timestamp: new Date().toISOString() } }));
  return ids;
}

/** The drain's figures once the receiver answers 200 at `recoveredAt` (performance.now()). */
async function drained(ctx: Context, receiver: Awaited<ReturnType<typeof startReceiver>>, recoveredAt: number, expected: string[], extraWaitMs = 0) {
  await until(() => expected.every((id) => receiver.state.delivered.has(id)), 600_000, 'every event delivered');
  const { firstAt } = receiver.state;
  const drainMs = performance.now() - firstAt;
  return { waitMs: firstAt - recoveredAt + extraWaitMs, drainMs, vsFetch: expected.length / (drainMs / 1000) / ctx.fetchRate };
}

/** A 5 s blip, real time: 503 from the first event until 5 s later. */
async function blip(ctx: Context, circuit: 'circuit' | 'none'): Promise<RecoveryRow> {
  const receiver = await startReceiver();
  const { engine } = startSender(ctx, receiver.url, circuit);
  try {
    const began = performance.now();
    const ids = enqueueAll(engine, ctx.events);
    await sleep(Math.max(0, 5000 - (performance.now() - began)));
    receiver.state.status = 200;
    const row = await drained(ctx, receiver, performance.now(), ids);
    return { outage: '5 s blip', sender: circuit === 'none' ? 'schedule only' : 'circuit', ...row };
  } finally {
    await engine.close({ timeoutMs: 2000 });
    await receiver.close();
  }
}

/** An outage of `outageMs` on the injected clock: every probe until then fails, then the receiver answers 200. */
async function longOutage(ctx: Context, outageMs: number, label: string): Promise<RecoveryRow> {
  const receiver = await startReceiver();
  const sender = startSender(ctx, receiver.url, 'circuit', 50);
  try {
    // The injected clock stands still while the events are held: no probe before the outage is simulated.
    sender.freeze(Date.now());
    const ids = enqueueAll(sender.engine, ctx.events);
    await until(async () => (await sender.engine.endpoint())?.state === 'open', 60_000, 'the circuit to open');
    await until(
      async () => {
        return (await sender.engine.endpoint())?.held === ctx.events;
      },
      120_000,
      'every event held',
    );
    const failedBefore = new Set(receiver.state.failed);
    let health = await sender.engine.endpoint();
    const recoveredClock = (health?.changedAt as number) + outageMs;
    let probes = 0;
    while ((health?.nextProbeAt as number) <= recoveredClock) {
      const before = health?.probes ?? 0;
      sender.freeze(health?.nextProbeAt as number);
      await until(async () => ((health = await sender.engine.endpoint())?.probes ?? 0) > before, 30_000, 'a failed probe');
      probes++;
    }
    receiver.state.status = 200;
    // The wait until the next probe is the injected clock's; the time from it to the first delivery is real.
    const probeWaitMs = (health?.nextProbeAt as number) - recoveredClock;
    sender.jump(health?.nextProbeAt as number);
    // A failed probe's event waits for its own retry, in real time (minutes): the drain is timed without those.
    const probed = new Set([...receiver.state.failed].filter((id) => !failedBefore.has(id)));
    const row = await drained(
      ctx,
      receiver,
      performance.now(),
      ids.filter((id) => !probed.has(id)),
      probeWaitMs,
    );
    return {
      outage: label,
      sender: 'circuit',
      ...row,
      note: `${probes} failed probes (their ${probed.size} events left out of the drain); the wait includes ${Math.round(probeWaitMs / 1000)} s of the injected clock until the next probe`,
    };
  } finally {
    await sender.engine.close({ timeoutMs: 2000 });
    await receiver.close();
  }
}

/** The schedule-only sender's wait after an outage of `outageMs`: the first step of the schedule at or after it, counted from the first attempt. */
function scheduleOnlyWaitMs(outageMs: number): number {
  let at = 0;
  for (const step of SCHEDULE) {
    at += step;
    if (at >= outageMs) return at - outageMs;
  }
  return Number.POSITIVE_INFINITY;
}

/** Every row of the recovery bench, one instance on `redisUrl`. */
export async function runRecoveryBench(redisUrl: string, events: number): Promise<{ rows: RecoveryRow[]; fetchRate: number }> {
  const client = createRedisClient(redisUrl, { commandTimeoutMs: 30_000 });
  await waitUntilConnected(client);
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  try {
    const fetchReceiver = await startReceiver();
    fetchReceiver.state.status = 200;
    await plainFetch(fetchReceiver.url, 2000);
    const fetchRate = await plainFetch(fetchReceiver.url, events);
    await fetchReceiver.close();
    const ctx: Context = { redisUrl, client, connection, events, fetchRate };
    const rows: RecoveryRow[] = [await blip(ctx, 'circuit'), await blip(ctx, 'none')];
    for (const [ms, label] of [
      [4 * 60_000, '4-minute outage'],
      [2 * 3_600_000, '2-hour outage'],
    ] as const) {
      rows.push(await longOutage(ctx, ms, label));
      rows.push({
        outage: label,
        sender: 'schedule only',
        waitMs: scheduleOnlyWaitMs(ms),
        drainMs: Number.NaN,
        vsFetch: Number.NaN,
        note: 'computed from the retry schedule (its next step after the outage); every event comes due at once, as in the blip row',
      });
    }
    return { rows, fetchRate };
  } finally {
    await client.quit();
    await connection.quit();
  }
}

/** The rows as a Markdown table. */
export function renderRecovery(result: { rows: RecoveryRow[]; fetchRate: number }, events: number): string {
  const s = (ms: number) => (Number.isNaN(ms) ? '—' : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 0)} s`);
  const lines = [
    `Plain fetch: ${Math.round(result.fetchRate)} events/s (50 in flight). ${events} events per row.`,
    '',
    '| outage | sender | 200 again → first delivery | first delivery → empty backlog | drain vs plain fetch | note |',
    '|---|---|---|---|---|---|',
    ...result.rows.map(
      (r) =>
        `| ${r.outage} | ${r.sender} | ${s(r.waitMs)} | ${s(r.drainMs)} | ${Number.isNaN(r.vsFetch) ? '—' : `${r.vsFetch.toFixed(2)}×`} | ${r.note ?? ''} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const events = Number(process.env.BENCH_RECOVERY_EVENTS ?? 5000);
  const redis = await startRedisServer();
  try {
    process.stdout.write(renderRecovery(await runRecoveryBench(redis.url, events), events));
  } finally {
    await redis.stop();
  }
}
