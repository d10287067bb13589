/**
 * The receiver's ack throughput on Redis against a bare node:http 200, in one run:
 * `npx tsx bench/receiver-ack.ts`. The receiver and the bare server each run in a process of
 * their own (bench/serve-target.ts), loaded by autocannon from this one; each row gives
 * requests per second and the process's own CPU per request, both against the bare server,
 * and the CPU per request counted until the process is idle again (a worker in the process
 * may still be processing what the load acknowledged).
 * With BENCH_BEFORE_DIR set to an extracted older tree of this repository (e.g. `git archive
 * <ref> | tar -x -C /tmp/before`, node_modules linked), its receiver runs in a process of its
 * own (its bench/serve-target.ts) in the same run too, so before and after are ratios of one
 * baseline. A private redis-server (no persistence) serves every Redis case; BENCH_CLUSTER=1
 * adds the same receiver on a private 3-primary Redis Cluster.
 */
import { join } from 'node:path';
import { createWebhookReceiver } from '../client/webhooks/index.js';
import { createRedisEventStore } from '../client/webhooks/redis/index.js';
import { listen } from '../test/helpers/listen.js';
import { startRedisCluster, type RedisCluster } from '../test/helpers/redis-cluster.js';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { runLoad } from './run-case.js';
import { cpuUntilIdle, startIsolated, type IsolatedTarget } from './isolated-target.js';
import type { Target } from './targets.js';

const durationS = Number(process.env.BENCH_DURATION_S ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const beforeDir = process.env.BENCH_BEFORE_DIR;
const before = beforeDir ? (redisUrl: string) => startIsolated('receiver-redis', redisUrl, join(beforeDir, 'bench/serve-target.ts')) : undefined;

const event = (id: string, timestamp: string) => JSON.stringify({ event: 'session.resumed', session: { id }, timestamp });
let run = 0;
const distinct = () => {
  const tag = `${process.pid}_${Date.now()}_${++run}`;
  return (n: number) => event(`bench_${tag}_${n}`, new Date().toISOString());
};
const duplicate = event('bench_duplicate', '2026-11-21T00:00:00.000Z');

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
// BENCH_CLUSTER=1 adds the receiver on a private 3-primary Redis Cluster (same code path).
const cluster: RedisCluster | undefined = process.env.BENCH_CLUSTER === '1' ? await startRedisCluster({ primaries: 3 }) : undefined;
async function startClusterReceiver(nodes: string[]): Promise<Target> {
  const receiver = createWebhookReceiver({ store: createRedisEventStore({ clusterNodes: nodes, prefix: 'bench' }), onEvent: async () => undefined });
  const server = await listen(receiver.handler);
  return { ...server, stop: async () => (await server.close(), await receiver.close()) };
}
const redis = await startRedisServer();
const rows: Array<[string, number, number, number | undefined, number | undefined]> = [];
try {
  for (let round = 0; round < rounds; round++) {
    type Case = [string, () => Promise<Target | IsolatedTarget>, string | ((n: number) => string)];
    const ifBefore = (c: Case): Case[] => (before ? [c] : []);
    const cases: Case[] = [
      ['bare node:http 200', () => startIsolated('http-200'), distinct()],
      ...ifBefore(['before: receiver, Redis store, distinct events', () => before!(redis.url), distinct()]),
      ['after: receiver, Redis store, distinct events', () => startIsolated('receiver-redis', redis.url), distinct()],
      ...ifBefore(['before: receiver, Redis store, one event repeated', () => before!(redis.url), duplicate]),
      ['after: receiver, Redis store, one event repeated', () => startIsolated('receiver-redis', redis.url), duplicate],
      ...(cluster
        ? ([['after: receiver, Redis Cluster (3 primaries), distinct events', () => startClusterReceiver(cluster.nodes), distinct()]] as Case[])
        : []),
      ...(cluster
        ? ([['after: receiver, Redis Cluster (3 primaries), one event repeated', () => startClusterReceiver(cluster.nodes), duplicate]] as Case[])
        : []),
      ['bare node:http 200 (again)', () => startIsolated('http-200'), distinct()],
    ];
    for (const [name, start, body] of cases) {
      const target = await start();
      try {
        const load = { url: `${target.url}/`, method: 'POST' as const, headers: { 'content-type': 'application/json' }, connections, body };
        await runLoad({ ...load, durationS: 1 });
        const cpu = 'cpuMicros' in target ? () => target.cpuMicros() : undefined;
        // The warm-up's events are processed before the measured load starts.
        if (cpu) await cpuUntilIdle(cpu);
        const cpuBefore = await cpu?.();
        const result = await runLoad({ ...load, durationS });
        const cpuAtEnd = await cpu?.();
        const cpuPerRequest = cpuAtEnd !== undefined && cpuBefore !== undefined ? (cpuAtEnd - cpuBefore) / Math.max(1, result.requests) : undefined;
        // A worker in the process may still be processing what the load acknowledged: the CPU until it is idle counts too.
        const cpuWithBacklog = cpu && cpuBefore !== undefined ? ((await cpuUntilIdle(cpu)) - cpuBefore) / Math.max(1, result.requests) : undefined;
        rows.push([name, result.requestsPerSec, result.p99Ms, cpuPerRequest, cpuWithBacklog]);
        if (result.non2xx || result.errors) process.stdout.write(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors\n`);
      } finally {
        await target.stop();
      }
    }
  }
} finally {
  await redis.stop();
  await cluster?.stop();
}
// Rounds interleave every case, so load from other processes on the machine hits all alike;
// each case reports its median over the rounds, the baseline the median of both bare rows.
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const names = [...new Set(rows.map(([name]) => name.replace(' (again)', '')))];
const of = (name: string) => rows.filter(([n]) => n.replace(' (again)', '') === name);
const baseline = median(of('bare node:http 200').map(([, rps]) => rps));
const cpuBaseline = median(of('bare node:http 200').map(([, , , cpu]) => cpu!));
process.stdout.write(
  `${rounds} rounds × ${durationS} s, ${connections} connections; medians\n| case | req/s | × bare node:http (req/s) | µs CPU/req | × bare node:http (CPU) | µs CPU/req until idle | × bare node:http (CPU until idle) | p99 ms |\n|---|---:|---:|---:|---:|---:|---:|---:|\n`,
);
for (const name of names) {
  const rps = median(of(name).map(([, r]) => r));
  const cpus = of(name).flatMap(([, , , c]) => (c === undefined ? [] : [c]));
  const cpu = cpus.length ? median(cpus) : undefined;
  const idles = of(name).flatMap(([, , , , c]) => (c === undefined ? [] : [c]));
  const idle = idles.length ? median(idles) : undefined;
  const cpuCells =
    cpu === undefined || idle === undefined
      ? '| | | | '
      : `| ${cpu.toFixed(0)} | ${(cpuBaseline / cpu).toFixed(2)}× | ${idle.toFixed(0)} | ${(cpuBaseline / idle).toFixed(2)}× `;
  process.stdout.write(`| ${name} | ${Math.round(rps)} | ${(rps / baseline).toFixed(2)}× ${cpuCells}| ${median(of(name).map(([, , p]) => p))} |\n`);
}
