/**
 * The delivery group of `npm run bench`: webhook deliveries of Redis-mode instances (Redis
 * delivery, bench/delivery-worker.ts, each in its own process, enqueueing as resumes do and
 * delivering) to one HTTPS receiver on loopback (its own process, bench/delivery-receiver.ts),
 * against plain `fetch` with 50 in flight to the same receiver in the same run
 * (bench/delivery-fetch.ts). Delivered counts and fresh events' latency come from the receiver.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { createQueueConnection, createRedisConnection, waitUntilConnected } from '../server/redis/create-redis-connection.js';
import { pino } from 'pino';
import { getTestCertificate } from '../test/helpers/tls.js';
import { redisKeys } from '../server/redis/redis-keys.js';
import { DELIVERY_QUEUE_NAME } from '../server/webhooks/bullmq-queue.js';
import { createRedisDelivery, type RedisDelivery } from '../server/webhooks/redis-delivery.js';
import { enqueueEvents } from './delivery-enqueue.js';

/** Settings of the delivery group. */
export interface DeliveryBenchOptions {
  redisUrl: string;
  /** Events of the baseline, steady, burst and two-instance rows. */
  events: number;
  /** Pending events of the large backlog; the growth row compares it with a tenth of it. */
  backlog: number;
  /** Directory for the instances' CPU profiles; none when absent. */
  profileDir?: string;
}

/** One row: events per second (the table's ratio is against the first row). */
export interface DeliveryRow {
  name: string;
  rate: number;
  /** What else the row says (latency, ratio to another row). */
  note?: string;
}

const certificate = getTestCertificate();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Longest wait for one row, in ms: past it the row reports the rate so far and says so. */
const ROW_LIMIT_MS = 240_000;
/** Delay before the burst row's events come due, in ms: long enough to enqueue them all first. */
const BURST_DUE_MS = 5000;
/**
 * Events the draining instance drains on the same queue before the backlogs: a fresh process
 * spends its first seconds compiling (V8 optimizes the hot path, and again for objects it has
 * not seen), which weighs on a short drain more than on a long one; a running instance whose
 * receiver comes back is warm.
 */
export const DRAIN_WARM_EVENTS = 5000;
/** A drain is timed by the receiver from the arrival of this many of its events to its last, the same for every size. */
export const DRAIN_FROM = 2000;

/** A bench child process with its output read line by line. */
interface Child {
  proc: ChildProcess;
  nextLine: () => Promise<string>;
}

function start(file: string, args: string[], env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []): Child {
  const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', fileURLToPath(new URL(file, import.meta.url)), ...args], {
    env: { ...process.env, ...env, DELIVERY_BENCH_CERT: certificate.cert, DELIVERY_BENCH_KEY: certificate.key },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
  return {
    proc,
    nextLine: async () => {
      const next = await lines.next();
      if (next.done) throw new Error(`${file} ended without answering`);
      return String(next.value);
    },
  };
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = once(proc, 'exit');
  proc.kill('SIGTERM');
  await exited;
}

/**
 * The receiver's counters: events received, each fresh event's ms from its timestamp and, after
 * a reset with a mark, when the marked event and the latest one arrived (ms, receiver's clock).
 */
interface ReceiverStats {
  received: number;
  fresh: number[];
  fromAt?: number;
  lastAt?: number;
}

/** The receiver's counters; `reset` clears them, and with `from` marks the from-th event to come. */
function receiverStats(origin: string, reset?: { from?: number }): Promise<ReceiverStats> {
  const query = reset ? `?reset=1${reset.from ? `&from=${reset.from}` : ''}` : '';
  return new Promise((resolve, reject) => {
    get(`${origin}/stats${query}`, { ca: certificate.cert }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString()) as ReceiverStats));
    }).on('error', reject);
  });
}

/** Waits until the receiver got `target` events (or the row limit): events per second since `since`. */
async function rateUntil(origin: string, target: number, since: number): Promise<{ rate: number; done: boolean }> {
  for (;;) {
    const stats = await receiverStats(origin);
    const elapsed = performance.now() - since;
    const done = stats.received >= target;
    if (done || elapsed > ROW_LIMIT_MS) return { rate: stats.received / (Math.max(elapsed, 1) / 1000), done };
    await sleep(100);
  }
}

/** A drain's figures: events per second, and the instance's CPU per event over the same events. */
interface Drain {
  rate: number;
  cpuMsPerEvent: number;
  done: boolean;
  stats: ReceiverStats;
}

/** The instance's CPU time so far, in ms (its `cpu` line). */
async function cpuMs(instance: Child): Promise<number> {
  instance.proc.stdin!.write('cpu\n');
  return Number(await instance.nextLine()) / 1000;
}

/**
 * Waits until the receiver got `target` events (or the row limit) after a reset marked at
 * DRAIN_FROM: events per second between the marked event and the latest, both timed by the
 * receiver, and the instance's CPU per event from the first poll past the mark to the last.
 */
async function drainRate(origin: string, target: number, instance: Child): Promise<Drain> {
  const started = performance.now();
  let from: { received: number; cpu: number } | undefined;
  for (;;) {
    const stats = await receiverStats(origin);
    if (!from && stats.received >= DRAIN_FROM) from = { received: stats.received, cpu: await cpuMs(instance) };
    const done = stats.received >= target;
    if (done || performance.now() - started > ROW_LIMIT_MS) {
      const { fromAt, lastAt = NaN } = stats;
      const rate = fromAt === undefined ? 0 : (stats.received - DRAIN_FROM) / (Math.max(lastAt - fromAt, 1) / 1000);
      const cpuMsPerEvent = from ? ((await cpuMs(instance)) - from.cpu) / Math.max(stats.received - from.received, 1) : NaN;
      return { rate, cpuMsPerEvent, done, stats };
    }
    await sleep(100);
  }
}

/** A run's shared parts: the receiver's origin, Redis, and a fresh queue per row. */
interface Run {
  options: DeliveryBenchOptions;
  origin: string;
  queues: number;
}

/** Starts `count` instances on a fresh queue, each its own process. */
async function instances(run: Run, count: number, firstDelayMs = 0, keyPrefix = `bench-delivery-${run.queues++}:`): Promise<Child[]> {
  const { profileDir } = run.options;
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const started = Array.from({ length: count }, () =>
    start('delivery-worker.ts', [run.options.redisUrl, keyPrefix, `${run.origin}/h`, String(firstDelayMs)], {}, nodeArgs),
  );
  for (const one of started) if ((await one.nextLine()) !== 'ready') throw new Error('a delivery instance did not start');
  return started;
}

/** Has every instance enqueue its share of `events`; resolves once all are queued. */
async function enqueueAll(workers: Child[], events: number, prefix: string): Promise<void> {
  const share = Math.ceil(events / workers.length);
  workers.forEach((w, i) => w.proc.stdin!.write(`${Math.min(share, events - i * share)} ${prefix}${i}\n`));
  for (const w of workers) await w.nextLine();
}

/** Plain fetch (the baseline) or node:https with kept connections, 50 in flight. */
async function plainRow(run: Run, client: 'fetch' | 'https'): Promise<DeliveryRow> {
  const dir = mkdtempSync(join(tmpdir(), 'sra-delivery-bench-'));
  writeFileSync(join(dir, 'ca.pem'), certificate.cert);
  const child = start('delivery-fetch.ts', [`${run.origin}/h`, String(run.options.events), '50', client], { NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') });
  const rate = Number(await child.nextLine());
  await stop(child.proc);
  const name =
    client === 'fetch' ? 'plain fetch, 50 in flight (baseline: the faster of the first and last row)' : 'plain node:https, kept connections, 50 in flight';
  return { name, rate };
}

/** `count` instances enqueue (as resumes arrive) and deliver the row's events between them. */
async function steadyRow(run: Run, count: number): Promise<DeliveryRow> {
  const workers = await instances(run, count);
  await receiverStats(run.origin, {});
  const since = performance.now();
  await enqueueAll(workers, run.options.events, 'steady');
  const { rate, done } = await rateUntil(run.origin, run.options.events, since);
  await Promise.all(workers.map((w) => stop(w.proc)));
  const name = count === 1 ? 'steady: one instance takes the events as resumes arrive and delivers them' : `${count} instances, the same events shared`;
  return { name, rate, ...(done ? {} : { note: 'not all delivered within the row limit' }) };
}

/** The row's events, queued before they come due, all come due at once (as retries do) before one instance. */
async function burstRow(run: Run): Promise<DeliveryRow> {
  const workers = await instances(run, 1, BURST_DUE_MS);
  await receiverStats(run.origin, {});
  const enqueued = performance.now();
  await enqueueAll(workers, run.options.events, 'burst');
  const due = Math.max(enqueued + BURST_DUE_MS, performance.now());
  await sleep(due - performance.now());
  const { rate, done } = await rateUntil(run.origin, run.options.events, due);
  await Promise.all(workers.map((w) => stop(w.proc)));
  return { name: 'burst: all come due at once, one instance', rate, ...(done ? {} : { note: 'not all delivered within the row limit' }) };
}

/** A queue paused (BullMQ's global pause), `size` events queued on it, all counted as pending. */
async function pausedBacklog(queue: Queue, producer: RedisDelivery, size: number, prefix: string): Promise<void> {
  await queue.pause();
  await enqueueEvents(producer, size, prefix);
  while ((await producer.stats()).pending < size) await sleep(50);
}

/** One drain of a backlog row: its rate, the instance's CPU per event, the fresh events' latencies. */
interface Drained {
  size: number;
  rate: number;
  cpuMsPerEvent: number;
  fresh: number[];
  done: boolean;
}

/** What a backlog drain needs: the receiver, the queue to pause, the producer, the draining instance. */
interface DrainSetup {
  origin: string;
  queue: Queue;
  producer: RedisDelivery;
  instance: Child;
}

/**
 * `size` events pending while the instance takes none (the queue paused, as if the receiver were
 * unreachable), then the instance drains them while fresh events keep coming; timed from the
 * receiver's DRAIN_FROM-th event to its last (drainRate).
 */
async function drainBacklog({ origin, queue, producer, instance }: DrainSetup, size: number): Promise<Drained> {
  await pausedBacklog(queue, producer, size, `backlog${size}`);
  await receiverStats(origin, { from: DRAIN_FROM });
  await queue.resume();
  let freshSent = 0;
  // A fresh event every 250 ms from another instance (this process), as resumes keep coming.
  const timer = setInterval(() => void enqueueEvents(producer, 1, `fresh_${freshSent++}`), 250);
  const { rate, cpuMsPerEvent, done, stats } = await drainRate(origin, size, instance);
  clearInterval(timer);
  return { size, rate, cpuMsPerEvent, fresh: stats.fresh, done };
}

/**
 * One instance on one queue drains each backlog of `sizes` in turn, after draining
 * DRAIN_WARM_EVENTS the same way: every drain meets the same warm code, whatever its size.
 */
async function backlogDrains(run: Run, sizes: readonly number[]): Promise<Drained[]> {
  const keyPrefix = `bench-delivery-${run.queues++}:`;
  const client = createRedisConnection({ url: run.options.redisUrl });
  await waitUntilConnected(client);
  const connection = createQueueConnection({ url: run.options.redisUrl });
  const producer = createRedisDelivery({ client, connection, keyPrefix, worker: false, relay: false, logger: pino({ enabled: false }) });
  const queue = new Queue(DELIVERY_QUEUE_NAME, { connection, prefix: redisKeys(keyPrefix).queuePrefix });
  const [instance] = await instances(run, 1, 0, keyPrefix);
  const setup = { origin: run.origin, queue, producer, instance: instance! };
  try {
    await pausedBacklog(queue, producer, DRAIN_WARM_EVENTS, 'warm');
    await receiverStats(run.origin, {});
    await queue.resume();
    while ((await receiverStats(run.origin)).received < DRAIN_WARM_EVENTS) await sleep(50);
    const drained: Drained[] = [];
    for (const size of sizes) drained.push(await drainBacklog(setup, size));
    return drained;
  } finally {
    await stop(instance!.proc);
    await Promise.all([producer.close(), queue.close()]);
    await Promise.allSettled([client.quit(), connection.quit()]);
  }
}

/** The backlog rows: the smaller backlog drained before and after the larger one (its figures the mean of both), then the growth. */
function backlogRows([before, large, after]: Drained[]): DeliveryRow[] {
  if (!before || !large || !after) return [];
  const mean = (a: number, b: number) => (a + b) / 2;
  const small = { rate: mean(before.rate, after.rate), cpu: mean(before.cpuMsPerEvent, after.cpuMsPerEvent) };
  const count = (n: number) => n.toLocaleString('en-US');
  const cpu = (ms: number) => `${ms.toFixed(3)} ms CPU per event`;
  const note = (parts: string[], ...drains: Drained[]) => [...parts, ...(drains.every((d) => d.done) ? [] : ['not drained within the row limit'])].join('; ');
  return [
    {
      name: `backlog of ${count(before.size)} drains, one warm instance (before and after the larger one)`,
      rate: small.rate,
      note: note([`${fmtRate(before.rate)} and ${fmtRate(after.rate)} events/s`, latency([...before.fresh, ...after.fresh]), cpu(small.cpu)], before, after),
    },
    {
      name: `backlog of ${count(large.size)} drains, the same instance`,
      rate: large.rate,
      note: note([latency(large.fresh), cpu(large.cpuMsPerEvent)], large),
    },
    {
      name: `growth: ${count(large.size)} vs ${count(before.size)} pending`,
      rate: large.rate,
      note: `drain rate ${(large.rate / small.rate).toFixed(2)}× the smaller backlog's; CPU per event ${(large.cpuMsPerEvent / small.cpu).toFixed(2)}×`,
    },
  ];
}

const fmtRate = (rate: number) => Math.round(rate).toLocaleString('en-US');

function latency(fresh: number[]): string {
  if (fresh.length === 0) return 'no fresh event arrived';
  const sorted = [...fresh].sort((a, b) => a - b);
  const p50 = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  return `fresh events while it drains (${sorted.length}): p50 ${Math.round(p50)} ms, max ${Math.round(sorted.at(-1) ?? NaN)} ms to the receiver`;
}

/**
 * One steady row on its own (bench/profile-delivery.ts): `count` instances, their CPU profiles
 * in `options.profileDir` when given.
 */
export async function runSteadyRow(options: DeliveryBenchOptions, count: number): Promise<DeliveryRow> {
  const receiver = start('delivery-receiver.ts', []);
  try {
    return await steadyRow({ options, origin: `https://127.0.0.1:${await receiver.nextLine()}`, queues: 0 }, count);
  } finally {
    await stop(receiver.proc);
  }
}

/** Runs the whole group; rows in the order of the table. */
export async function runDeliveryCases(options: DeliveryBenchOptions): Promise<DeliveryRow[]> {
  const receiver = start('delivery-receiver.ts', []);
  const run: Run = { options, origin: `https://127.0.0.1:${await receiver.nextLine()}`, queues: 0 };
  try {
    const first = await plainRow(run, 'fetch');
    const https = await plainRow(run, 'https');
    const steady = await steadyRow(run, 1);
    const burst = await burstRow(run);
    const two = await steadyRow(run, 2);
    const smaller = Math.round(options.backlog / 10);
    const drained = await backlogDrains(run, [smaller, options.backlog, smaller]);
    // Measured at the start and at the end, the faster kept: a busy moment on a shared box does not flatter the rows.
    const last = await plainRow(run, 'fetch');
    const base = last.rate > first.rate ? last : first;
    const withNote = (row: DeliveryRow, note: string): DeliveryRow => ({ name: row.name, rate: row.rate, note: [note, row.note].filter(Boolean).join('; ') });
    return [base, https, steady, burst, withNote(two, `${(two.rate / steady.rate).toFixed(2)}× one instance`), ...backlogRows(drained)];
  } finally {
    await stop(receiver.proc);
  }
}
