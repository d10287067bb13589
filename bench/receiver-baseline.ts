/**
 * The receiver kit against the receiver a user would write by hand, in one run:
 * `npx tsx bench/receiver-baseline.ts`. Every target runs in a process of its own
 * (bench/serve-target.ts), loaded by autocannon from this one with signed deliveries
 * (Standard Webhooks, one signature per request, made here and not counted):
 * - the hand-written receiver (express + standardwebhooks verify + ioredis SET NX EX + BullMQ
 *   Queue.add, a BullMQ Worker processing in the same process) and the kit on Redis with the same
 *   secret, each on distinct events and on one event repeated; CPU per request counted from idle
 *   to idle (the worker's processing of what the load acknowledged included);
 * - bare node:http answering 200, the limit;
 * - `receiver.fetch` through Hono on @hono/node-server against `receiver.handler` on node:http,
 *   both on the memory store, unsigned (the adapters alone).
 * A private redis-server (no persistence) serves the Redis cases. Rounds interleave the cases, so
 * load from other processes hits them alike; each row is the median over the rounds.
 */
import { Webhook } from 'standardwebhooks';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { cpuUntilIdle, startIsolated } from './isolated-target.js';
import { BENCH_WEBHOOK_SECRET } from './receiver-targets.js';
import { runLoad } from './run-case.js';
import type { TargetName } from './targets.js';

const durationS = Number(process.env.BENCH_DURATION_S ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

const webhook = new Webhook(BENCH_WEBHOOK_SECRET);
let signed = 0;
const sign = (body: string) => {
  const id = `msg_bench_${++signed}`;
  const at = new Date();
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': webhook.sign(id, at, body) };
};
const event = (id: string, timestamp: string) => JSON.stringify({ event: 'session.resumed', session: { id }, timestamp });
let run = 0;
const distinct = () => {
  const tag = `${process.pid}_${Date.now()}_${++run}`;
  return (n: number) => event(`bench_${tag}_${n}`, new Date().toISOString());
};
// One event, signed once: every request is the same delivery again (same webhook-id).
const repeated = event('bench_repeated', '2026-11-25T00:00:00.000Z');
const repeatedHeaders = sign(repeated);

interface Case {
  name: string;
  target: TargetName;
  body: string | ((n: number) => string);
  signed: 'each' | 'once' | 'no';
}
const cases = (): Case[] => [
  { name: 'bare node:http 200', target: 'http-200', body: distinct(), signed: 'no' },
  {
    name: 'hand-written receiver (express, standardwebhooks, SET NX EX, Queue.add), distinct events',
    target: 'receiver-hand-written',
    body: distinct(),
    signed: 'each',
  },
  { name: 'receiver kit, Redis store, secret, distinct events', target: 'receiver-redis-signed', body: distinct(), signed: 'each' },
  { name: 'hand-written receiver, one event repeated', target: 'receiver-hand-written', body: repeated, signed: 'once' },
  { name: 'receiver kit, Redis store, secret, one event repeated', target: 'receiver-redis-signed', body: repeated, signed: 'once' },
  { name: 'receiver.handler on node:http, memory store, distinct events', target: 'receiver-memory', body: distinct(), signed: 'no' },
  { name: 'receiver.fetch via Hono on @hono/node-server, memory store, distinct events', target: 'receiver-memory-hono', body: distinct(), signed: 'no' },
];

type Row = { name: string; rps: number; p99: number; cpu: number; idle: number };
const rows: Row[] = [];
const redis = await startRedisServer();
try {
  for (let round = 0; round < rounds; round++) {
    for (const c of cases()) {
      const target = await startIsolated(c.target, redis.url);
      try {
        const headers = { 'content-type': 'application/json', ...(c.signed === 'once' ? repeatedHeaders : {}) };
        const load = { url: `${target.url}/`, method: 'POST' as const, headers, connections, body: c.body, ...(c.signed === 'each' ? { sign } : {}) };
        await runLoad({ ...load, durationS: 1 });
        const cpu = () => target.cpuMicros();
        const cpuBefore = await cpuUntilIdle(cpu);
        const result = await runLoad({ ...load, durationS });
        const cpuAtEnd = await cpu();
        const cpuIdle = await cpuUntilIdle(cpu);
        const n = Math.max(1, result.requests);
        rows.push({ name: c.name, rps: result.requestsPerSec, p99: result.p99Ms, cpu: (cpuAtEnd - cpuBefore) / n, idle: (cpuIdle - cpuBefore) / n });
        if (result.non2xx || result.errors) process.stdout.write(`${c.name}: ${result.non2xx} non-2xx, ${result.errors} errors\n`);
      } finally {
        await target.stop();
      }
    }
  }
} finally {
  await redis.stop();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const of = (name: string) => rows.filter((r) => r.name === name);
const m = (name: string, field: 'rps' | 'p99' | 'cpu' | 'idle') => median(of(name).map((r) => r[field]));
const [bare, handDistinct, kitDistinct, handRepeated, kitRepeated, nodeHandler, honoFetch] = cases().map((c) => c.name) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];
const ratioTo = (base: string) => (name: string) => `${(m(name, 'rps') / m(base, 'rps')).toFixed(2)}× | ${(m(base, 'idle') / m(name, 'idle')).toFixed(2)}×`;
process.stdout.write(
  `${rounds} rounds × ${durationS} s, ${connections} connections; medians; CPU per request of the target process from idle to idle\n` +
    `| case | req/s | µs CPU/req (idle to idle) | p99 ms | against | × req/s | × CPU (baseline CPU / this CPU) |\n|---|---:|---:|---:|---|---:|---:|\n`,
);
const line = (name: string, against: string, ratio: string) =>
  process.stdout.write(`| ${name} | ${Math.round(m(name, 'rps'))} | ${m(name, 'idle').toFixed(0)} | ${m(name, 'p99')} | ${against} | ${ratio} |\n`);
line(bare, '—', '1.00× | 1.00×');
line(handDistinct, 'bare node:http', ratioTo(bare)(handDistinct));
line(kitDistinct, 'hand-written, distinct', ratioTo(handDistinct)(kitDistinct));
line(handRepeated, 'bare node:http', ratioTo(bare)(handRepeated));
line(kitRepeated, 'hand-written, repeated', ratioTo(handRepeated)(kitRepeated));
line(nodeHandler, 'bare node:http', ratioTo(bare)(nodeHandler));
line(honoFetch, 'receiver.handler, memory', ratioTo(nodeHandler)(honoFetch));
