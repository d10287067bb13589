/**
 * Delivery throughput against an HTTPS receiver in its own process on loopback: a baseline of
 * plain node:https POSTs (keep-alive, 50 in flight), then the delivery engine on the
 * in-process queue and on BullMQ (a private redis-server), at the default WEBHOOK_CONCURRENCY
 * and at 16, with and without kept connections. Events per second and the ratio to the
 * baseline of the same run; absolute numbers move with the machine's load.
 *
 *   npx tsx bench/delivery-rate.ts [--events 3000]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:https';
import { parseArgs } from 'node:util';
import { createQueueConnection, createRedisConnection, waitUntilConnected } from '../server/redis/create-redis-connection.js';
import { pino } from 'pino';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { getTestCertificate } from '../test/helpers/tls.js';
import { createMemoryDelivery } from '../server/webhooks/memory-delivery.js';
import { createRedisDelivery } from '../server/webhooks/redis-delivery.js';
import { DEFAULT_CONCURRENCY } from '../server/webhooks/delivery-queue.js';
import type { DeliveryEngine } from '../server/webhooks/delivery-engine.js';

const { values } = parseArgs({ options: { events: { type: 'string', default: '3000' } } });
const N = Number(values.events);
const certificate = getTestCertificate();
const logger = pino({ enabled: false });
const body = (i: number) => JSON.stringify({ event: 'session.resumed', session: { id: `rate_${i}` }, timestamp: new Date().toISOString() });

/** Starts the receiver process; resolves with its origin and a stop function. */
async function startReceiver(): Promise<{ origin: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('delivery-receiver.ts', import.meta.url).pathname], {
    env: { ...process.env, DELIVERY_BENCH_CERT: certificate.cert, DELIVERY_BENCH_KEY: certificate.key },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
  return { origin: `https://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

/** Plain node:https, 50 POSTs in flight on kept connections: events per second. */
async function baseline(origin: string): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 50, ca: certificate.cert });
  const post = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const req = request(`${origin}/h`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body(i));
    });
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < N) await post(next++);
    }),
  );
  agent.destroy();
  return N / ((performance.now() - started) / 1000);
}

/** Enqueues N events into `engine` and waits until it delivered them all: events per second. */
async function engineRate(engine: DeliveryEngine): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < N; i++) engine.enqueue({ id: `msg_${randomUUID()}`, payload: JSON.parse(body(i)) });
  // Delivered events beyond the kept history are no longer counted: wait until none is left undelivered.
  for (let stats = await engine.stats(); stats.delivered < Math.min(N, 1000) || stats.pending + stats.delivering > 0; stats = await engine.stats()) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const rate = N / ((performance.now() - started) / 1000);
  await engine.close();
  return rate;
}

const receiver = await startReceiver();
const redis = await startRedisServer();
const client = createRedisConnection({ url: redis.url });
await waitUntilConnected(client);
const connection = createQueueConnection({ url: redis.url });
try {
  const url = `${receiver.origin}/h`;
  const common = { url, ca: certificate.cert, allowPrivate: true, logger };
  const rows: [string, number][] = [['plain node:https, keep-alive, 50 in flight', await baseline(receiver.origin)]];
  for (const concurrency of [16, DEFAULT_CONCURRENCY]) {
    for (const keepAlive of [true, false]) {
      const label = `concurrency ${concurrency}, ${keepAlive ? 'kept connections' : 'a connection per attempt'}`;
      rows.push([`memory: ${label}`, await engineRate(createMemoryDelivery({ ...common, concurrency, keepAlive, maxPending: N }))]);
      const keyPrefix = `rate:${randomUUID()}:`;
      rows.push([`Redis: ${label}`, await engineRate(createRedisDelivery({ ...common, client, connection, keyPrefix, concurrency, keepAlive, relay: false }))]);
    }
  }
  const base = rows[0]![1];
  const table = [
    '| case | events/s | × baseline |',
    '|---|---:|---:|',
    ...rows.map(([name, rate]) => `| ${name} | ${Math.round(rate)} | ${(rate / base).toFixed(2)}× |`),
  ];
  process.stdout.write(`${N} events per case\n\n${table.join('\n')}\n`);
} finally {
  await client.quit();
  await connection.quit();
  await redis.stop();
  receiver.stop();
}
