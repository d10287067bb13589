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
 * With `full` (BENCH_RECOVERY_FULL=1) one more row: the 4-minute outage with the contract's
 * full backlog held (`maxHeldEvents`, 100 000), against plain fetch of as many events in the same
 * run, its drain beside the contract's count for it (tools/lint/circuit-hold.ts, what
 * `npm run lint:spec` composes into the dedupe window). Off by default: it takes minutes.
 *
 *   tsx bench/recovery.ts            (BENCH_RECOVERY_EVENTS, default 5000; BENCH_RECOVERY_FULL=1 adds the full backlog)
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
import { circuitDelay } from '../tools/lint/circuit-hold.js';

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
  /** From the first enqueue to every event held, ms (the injected-clock rows). */
  holdMs?: number;
  /** Redis's `used_memory` once every event is held, bytes (the injected-clock rows). */
  heldRedisBytes?: number;
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
  /** Scales every wait's timeout: the full backlog takes minutes to hold and to drain. */
  timeoutScale: number;
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
  // The size first: a scan of 100 000 ids every 5 ms would take the CPU the drain needs.
  await until(
    () => receiver.state.delivered.size >= expected.length && expected.every((id) => receiver.state.delivered.has(id)),
    600_000 * ctx.timeoutScale,
    'every event delivered',
  );
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
    const holdStarted = performance.now();
    const ids = enqueueAll(sender.engine, ctx.events);
    await until(async () => (await sender.engine.endpoint())?.state === 'open', 60_000 * ctx.timeoutScale, 'the circuit to open');
    await until(
      async () => {
        return (await sender.engine.endpoint())?.held === ctx.events;
      },
      120_000 * ctx.timeoutScale,
      'every event held',
    );
    const holdMs = performance.now() - holdStarted;
    const heldRedisBytes = redisMemory(await ctx.client.info('memory'), 'used_memory');
    const failedBefore = new Set(receiver.state.failed);
    let health = await sender.engine.endpoint();
    const recoveredClock = (health?.changedAt as number) + outageMs;
    let probes = 0;
    while ((health?.nextProbeAt as number) <= recoveredClock) {
      const before = health?.probes ?? 0;
      sender.freeze(health?.nextProbeAt as number);
      await until(async () => ((health = await sender.engine.endpoint())?.probes ?? 0) > before, 30_000 * ctx.timeoutScale, 'a failed probe');
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
      holdMs,
      heldRedisBytes,
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

/** Plain fetch's rate for `events` to a receiver that answers 200 (after a warm-up of 2000). */
async function fetchRateFor(events: number): Promise<number> {
  const fetchReceiver = await startReceiver();
  fetchReceiver.state.status = 200;
  try {
    await plainFetch(fetchReceiver.url, 2000);
    return await plainFetch(fetchReceiver.url, events);
  } finally {
    await fetchReceiver.close();
  }
}

/** A byte count of Redis's INFO memory section. */
function redisMemory(info: string, field: string): number {
  return Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(info)?.[1] ?? Number.NaN);
}

/** The contract's count for the drain of the full backlog (what `npm run lint:spec` reads), ms. */
export const FULL_BACKLOG_BOUND_MS = circuitDelay(ENDPOINT_HEALTH_POLICY, WEBHOOK_DELIVERY_POLICY.answerDeadlineMs).drainMs;

/** The 4-minute outage with `maxHeldEvents` held, its plain fetch of as many events measured just before it. */
async function fullBacklog(ctx: Context): Promise<{ row: RecoveryRow; fetchRate: number }> {
  const events = ENDPOINT_HEALTH_POLICY.maxHeldEvents;
  const fetchRate = await fetchRateFor(events);
  const row = await longOutage({ ...ctx, events, fetchRate, timeoutScale: 10 }, 4 * 60_000, `4-minute outage, full backlog (${events})`);
  const s = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  const mb = (bytes: number) => `${Math.round(bytes / 1_000_000)} MB`;
  const peak = redisMemory(await ctx.client.info('memory'), 'used_memory_peak');
  const held = `held in ${s(row.holdMs ?? Number.NaN)}, Redis ${mb(row.heldRedisBytes ?? Number.NaN)} then (peak ${mb(peak)}); plain fetch ${Math.round(fetchRate)} events/s for ${events}`;
  const bound = `bound ${s(FULL_BACKLOG_BOUND_MS)} (lint:spec), measured ${s(row.drainMs)} = ${(row.drainMs / FULL_BACKLOG_BOUND_MS).toFixed(2)} of it`;
  return { row: { ...row, note: `${bound}; ${held}; ${row.note ?? ''}` }, fetchRate };
}

/** Every row of the recovery bench, one instance on `redisUrl`; with `full`, the full backlog's row after them. */
export async function runRecoveryBench(
  redisUrl: string,
  events: number,
  { full = false }: { full?: boolean } = {},
): Promise<{ rows: RecoveryRow[]; fetchRate: number }> {
  const client = createRedisClient(redisUrl, { commandTimeoutMs: 30_000 });
  await waitUntilConnected(client);
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  try {
    const fetchRate = await fetchRateFor(events);
    const ctx: Context = { redisUrl, client, connection, events, fetchRate, timeoutScale: 1 };
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
    if (full) rows.push((await fullBacklog(ctx)).row);
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
    `Plain fetch: ${Math.round(result.fetchRate)} events/s (50 in flight). ${events} events per row${result.rows.some((r) => r.outage.includes('full backlog')) ? " (the full backlog's row: its own count and plain fetch, in its note)" : ''}.`,
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
  const full = process.env.BENCH_RECOVERY_FULL === '1';
  const redis = await startRedisServer();
  try {
    process.stdout.write(renderRecovery(await runRecoveryBench(redis.url, events, { full }), events));
  } finally {
    await redis.stop();
  }
}
