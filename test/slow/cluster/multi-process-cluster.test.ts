/**
 * Two server processes on a private 3-primary Redis Cluster (REDIS_CLUSTER_NODES): the
 * concurrency rule across processes and shared seeding, as on one Redis node.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { runServerExpectingExit, startServerProcess, type ServerProcess } from '../../helpers/server-process.js';

const API_KEY = 'e2e-key';
const started: ServerProcess[] = [];
let cluster: RedisCluster;
let sessionsFile: string;

const seeds = [
  { id: 'hot', status: 'paused' },
  { id: 'p2', status: 'paused' },
  ...Array.from({ length: 30 }, (_, i) => ({ id: `many-${i}`, status: 'paused' })),
];

async function start(seedNodes: string[]): Promise<ServerProcess> {
  const server = await startServerProcess({
    API_KEYS: API_KEY,
    REDIS_CLUSTER_NODES: seedNodes.join(','),
    SESSIONS_FILE: sessionsFile,
  });
  started.push(server);
  return server;
}

const resume = (url: string, id: string) =>
  fetch(`${url}/v1/sessions/${encodeURIComponent(id)}/resume`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` } });

beforeAll(async () => {
  sessionsFile = join(mkdtempSync(join(tmpdir(), 'sessions-')), 'sessions.json');
  writeFileSync(sessionsFile, JSON.stringify(seeds));
  cluster = await startRedisCluster({ primaries: 3 });
});

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop('SIGKILL')));
  await cluster?.stop();
});

describe('two processes on a 3-primary Redis Cluster', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  beforeAll(async () => {
    // Each process knows a different single seed: the rest of the cluster is discovered.
    [a, b] = await Promise.all([start([cluster.nodes[0]!]), start([cluster.nodes[2]!])]);
  });

  it('of 200 concurrent resumes of one paused session, spread over both processes, exactly one gets 200', async () => {
    const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => resume(i % 2 ? a.url : b.url, 'hot').then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(199);
  });

  it('sessions on every primary resume once each, through either process', async () => {
    const first = await Promise.all(seeds.slice(2).map((s, i) => resume(i % 2 ? a.url : b.url, s.id).then((r) => r.status)));
    const second = await Promise.all(seeds.slice(2).map((s, i) => resume(i % 2 ? b.url : a.url, s.id).then((r) => r.status)));
    expect(first.every((s) => s === 200)).toBe(true);
    expect(second.every((s) => s === 409)).toBe(true);
  });

  it('a third process started with the same file does not overwrite the shared state', async () => {
    expect((await resume(a.url, 'p2')).status).toBe(200);
    const c = await start(cluster.nodes);
    expect((await resume(c.url, 'p2')).status).toBe(409);
    expect((await resume(c.url, 'hot')).status).toBe(409);
  });
});

describe('startup on a cluster', () => {
  it('refuses REDIS_URL together with REDIS_CLUSTER_NODES, and a cluster that does not answer, saying what to fix', async () => {
    const both = await runServerExpectingExit({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: '127.0.0.1:2' });
    expect(both.code).toBe(1);
    expect(both.output).toContain('not both');
    const none = await runServerExpectingExit({ REDIS_CLUSTER_NODES: '127.0.0.1:1' });
    expect(none.code).toBe(1);
    expect(none.output).toMatch(/Redis Cluster \(seeds 127\.0\.0\.1:1\) did not answer.*REDIS_CLUSTER_NODES/);
  });
});
