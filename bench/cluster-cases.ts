/**
 * The bench's Redis Cluster group: resume throughput of real server processes
 * (`server/main.ts`) over one Redis node (the baseline) and over a private 3-primary cluster,
 * with one and with two instances, and seeding 1M sessions on each (first seed, and a restart
 * over the seeded Redis). Everything on 127.0.0.1; every server and Redis is stopped after.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisCluster } from '../test/helpers/redis-cluster.js';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { startServerProcess, type ServerProcess } from '../test/helpers/server-process.js';
import { createRedisConnection, waitUntilConnected, type RedisTarget } from '../server/redis/create-redis-connection.js';
import { createRedisSeedMarker } from '../server/sessions/session-seed-admin.js';
import { createRedisSessionStore } from '../server/sessions/redis-session-store.js';
import { seedStore } from '../server/sessions/seed-on-start.js';
import type { SeedSource } from '../server/sessions/session-seeds.js';
import { createWebhookReceiver } from '../client/webhooks/index.js';
import { createRedisEventStore } from '../client/webhooks/redis/index.js';
import { listen } from '../test/helpers/listen.js';
import { runLoad, type LoadResult } from './run-case.js';

/** Settings: seconds of load per case, connections per case (split over the instances), sessions to seed. */
export interface ClusterBenchOptions {
  durationS: number;
  connections: number;
  /** Loads per case, the best kept (default 3). */
  rounds?: number;
  /** Sessions in the seeding rows (default 1 000 000). */
  seedSessions?: number;
}

/** One resume row: req/s summed over the instances. */
export interface ClusterLoadRow {
  name: string;
  requestsPerSec: number;
  p99Ms: number;
  errors: number;
}

/** One seeding row, in ms. */
export interface SeedRow {
  name: string;
  sessions: number;
  firstMs: number;
  restartMs: number;
}

const KEY = 'bench-key';

async function loadInstances(instances: ServerProcess[], options: ClusterBenchOptions): Promise<Omit<ClusterLoadRow, 'name'>> {
  const per = Math.max(1, Math.round(options.connections / instances.length));
  const load = (s: ServerProcess, durationS: number) =>
    runLoad({
      url: `${s.url}/v1/sessions/bench_running/resume`,
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
      connections: per,
      durationS,
    });
  await Promise.all(instances.map((s) => load(s, 1)));
  // Best of `rounds`: on a shared machine the other processes' load only ever lowers a round.
  let best: Omit<ClusterLoadRow, 'name'> | undefined;
  for (let round = 0; round < (options.rounds ?? 3); round++) {
    const results: LoadResult[] = await Promise.all(instances.map((s) => load(s, options.durationS)));
    const row = {
      requestsPerSec: results.reduce((sum, r) => sum + r.requestsPerSec, 0),
      p99Ms: Math.max(...results.map((r) => r.p99Ms)),
      errors: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    };
    if (!best || row.requestsPerSec > best.requestsPerSec) best = row;
  }
  return best!;
}

async function resumeRows(env: Record<string, string>, label: string, options: ClusterBenchOptions): Promise<ClusterLoadRow[]> {
  const rows: ClusterLoadRow[] = [];
  for (const count of [1, 2]) {
    const instances = await Promise.all(Array.from({ length: count }, () => startServerProcess({ ...env, API_KEYS: KEY, LOG_LEVEL: 'error' })));
    try {
      rows.push({ name: `${count} instance${count > 1 ? 's' : ''}, ${label}`, ...(await loadInstances(instances, options)) });
    } finally {
      await Promise.all(instances.map((s) => s.stop()));
    }
  }
  return rows;
}

async function seedRow(target: RedisTarget, label: string, sessions: number): Promise<SeedRow> {
  const client = createRedisConnection(target, { commandTimeoutMs: 30_000 });
  try {
    await waitUntilConnected(client);
    const store = createRedisSessionStore({ client, keyPrefix: 'bench-seed:' });
    const marker = createRedisSeedMarker(client, 'bench-seed:');
    const source: SeedSource = {
      label: 'bench',
      version: `bench-${sessions}`,
      load: async () => Array.from({ length: sessions }, (_, i) => ({ id: `sess_${i}`, status: i % 2 ? 'paused' : 'running' })),
    };
    let t = performance.now();
    await seedStore({ store, source, marker });
    const firstMs = performance.now() - t;
    t = performance.now();
    const again = await seedStore({ store, source, marker });
    if (!again.skipped) throw new Error('the restart over a seeded Redis did not skip seeding');
    return { name: label, sessions, firstMs, restartMs: performance.now() - t };
  } finally {
    client.disconnect();
  }
}

/** Runs the group (about 30 s plus seeding): one node, then a 3-primary cluster, each started here and stopped after. */
/**
 * The receiver kit's ack throughput (distinct events, the Redis event store in this process)
 * on `target`: best of `rounds` loads.
 */
async function ackRow(target: { url: string } | { clusterNodes: string[] }, name: string, options: ClusterBenchOptions): Promise<ClusterLoadRow> {
  const store = createRedisEventStore({ ...target, prefix: `bench-ack-${process.pid}` });
  const receiver = createWebhookReceiver({ store, onEvent: async () => undefined });
  const server = await listen(receiver.handler);
  let n = 0;
  const body = () => JSON.stringify({ event: 'session.resumed', session: { id: `bench_${process.pid}_${++n}` }, timestamp: new Date().toISOString() });
  const load = (durationS: number) =>
    runLoad({ url: `${server.url}/`, method: 'POST', headers: { 'content-type': 'application/json' }, connections: options.connections, durationS, body });
  try {
    await load(1);
    let best: LoadResult | undefined;
    for (let round = 0; round < (options.rounds ?? 3); round++) {
      const result = await load(options.durationS);
      if (!best || result.requestsPerSec > best.requestsPerSec) best = result;
    }
    return { name, requestsPerSec: best!.requestsPerSec, p99Ms: best!.p99Ms, errors: best!.errors + best!.non2xx };
  } finally {
    await server.close();
    await receiver.close();
  }
}

export async function runClusterCases(options: ClusterBenchOptions): Promise<{ resume: ClusterLoadRow[]; seed: SeedRow[]; ack: ClusterLoadRow[] }> {
  // The servers seed the one running session the load resumes.
  const file = join(mkdtempSync(join(tmpdir(), 'bench-sessions-')), 'sessions.json');
  writeFileSync(file, JSON.stringify([{ id: 'bench_running', status: 'running' }]));
  const sessions = options.seedSessions ?? 1_000_000;
  const node = await startRedisServer();
  const resume: ClusterLoadRow[] = [];
  const seed: SeedRow[] = [];
  const ack: ClusterLoadRow[] = [];
  try {
    resume.push(...(await resumeRows({ REDIS_URL: node.url, SESSIONS_FILE: file }, 'one Redis node', options)));
    seed.push(await seedRow({ url: node.url }, 'one Redis node', sessions));
    ack.push(await ackRow({ url: node.url }, 'receiver ack, distinct events, one Redis node', options));
  } finally {
    await node.stop();
  }
  const cluster = await startRedisCluster({ primaries: 3 });
  try {
    resume.push(...(await resumeRows({ REDIS_CLUSTER_NODES: cluster.nodes.join(','), SESSIONS_FILE: file }, '3-primary Redis Cluster', options)));
    seed.push(await seedRow({ clusterNodes: cluster.nodes }, '3-primary Redis Cluster', sessions));
    ack.push(await ackRow({ clusterNodes: cluster.nodes }, 'receiver ack, distinct events, 3-primary Redis Cluster', options));
  } finally {
    await cluster.stop();
  }
  return { resume, seed, ack };
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The group as Markdown, ratios against "1 instance, one Redis node" and against the one-node seeding. */
export function renderClusterSection(result: { resume: ClusterLoadRow[]; seed: SeedRow[]; ack?: ClusterLoadRow[] }): string {
  const base = result.resume[0]?.requestsPerSec ?? NaN;
  const seedBase = result.seed[0];
  const lines = [
    '## Redis Cluster',
    '',
    `Real server processes (\`server/main.ts\`), steady-state resume (409, one Lua script call each), load split over the`,
    `instances; all on the same ${cpus().length} cores as the load generator and every Redis node, so a second instance or`,
    'more primaries cannot add CPU here: the rows show what the cluster client costs, not how far it scales.',
    '',
    '| case | req/s | × 1 instance on one node | p99 ms | errors |',
    '|---|---:|---:|---:|---:|',
    ...result.resume.map(
      (r, i) =>
        `| ${r.name} | ${fmt(r.requestsPerSec)} | ${i === 0 ? 'baseline' : `${fmt(r.requestsPerSec / base, 2)}×`} | ${fmt(r.p99Ms)} | ${fmt(r.errors)} |`,
    ),
    '',
    '| seeding | sessions | first seed ms | × one node | restart over the seeded Redis ms |',
    '|---|---:|---:|---:|---:|',
    ...result.seed.map(
      (r, i) =>
        `| ${r.name} | ${fmt(r.sessions)} | ${fmt(r.firstMs)} | ${i === 0 || !seedBase ? 'baseline' : `${fmt(r.firstMs / seedBase.firstMs, 2)}×`} | ${fmt(r.restartMs, 1)} |`,
    ),
    '',
  ];
  const ack = result.ack ?? [];
  const ackBase = ack[0]?.requestsPerSec ?? NaN;
  if (ack.length) {
    lines.push(
      '| receiver kit (Redis event store, in this process) | acks/s | × one node | p99 ms | errors |',
      '|---|---:|---:|---:|---:|',
      ...ack.map(
        (r, i) =>
          `| ${r.name} | ${fmt(r.requestsPerSec)} | ${i === 0 ? 'baseline' : `${fmt(r.requestsPerSec / ackBase, 2)}×`} | ${fmt(r.p99Ms)} | ${fmt(r.errors)} |`,
      ),
      '',
    );
  }
  return lines.join('\n');
}
