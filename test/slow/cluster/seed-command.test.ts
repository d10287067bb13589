/**
 * Seeding as an operator sees it, on one Redis node (random prefix on the test Redis) and on
 * a private 3-primary cluster: `session-resume-api-server seed [--reset]`, and a restart over
 * an already seeded Redis that skips seeding.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { deletePrefix, uniquePrefix } from '../../helpers/redis-keys.js';
import { startServerProcess } from '../../helpers/server-process.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const run = promisify(execFile);
const API_KEY = 'seed-key';
const seeds = Array.from({ length: 500 }, (_, i) => ({ id: `s-${i}`, status: i === 0 ? 'paused' : i % 3 ? 'paused' : 'running' }));

/** Runs `session-resume-api-server <args>` as a process; resolves with its exit code and output. */
async function serverCommand(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'server/main.ts', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: 60_000,
    });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

let cluster: RedisCluster;
let sessionsFile: string;
const prefix = `${uniquePrefix('seed')}:`;

beforeAll(async () => {
  sessionsFile = join(mkdtempSync(join(tmpdir(), 'sessions-')), 'sessions.json');
  writeFileSync(sessionsFile, JSON.stringify(seeds));
  cluster = await startRedisCluster({ primaries: 3 });
});

afterAll(async () => {
  await cluster?.stop();
  await deletePrefix(inject('redisUrl'), prefix);
});

const targets = [
  { name: 'one Redis node', env: () => ({ REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: prefix }) },
  { name: 'a 3-primary Redis Cluster', env: () => ({ REDIS_CLUSTER_NODES: cluster.nodes.join(',') }) },
];

describe.each(targets)('seeding on $name', (target) => {
  it('seed creates the missing sessions; a server restart skips seeding; seed keeps state; seed --reset restores the file', async () => {
    const env = { ...target.env(), SESSIONS_FILE: sessionsFile };
    const first = await serverCommand(['seed'], env);
    expect(first).toMatchObject({ code: 0 });
    expect(first.out).toContain(`created ${seeds.length}, kept 0`);

    const server = await startServerProcess({ ...env, API_KEYS: API_KEY, LOG_LEVEL: 'info' });
    try {
      expect(server.output()).toContain('sessions already seeded from this source');
      const resume = () => fetch(`${server.url}/v1/sessions/s-0/resume`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` } });
      expect((await resume()).status).toBe(200);

      const again = await serverCommand(['seed'], env);
      expect(again.out).toContain(`created 0, kept ${seeds.length}`);
      expect((await resume()).status).toBe(409);

      const reset = await serverCommand(['seed', '--reset'], env);
      expect(reset).toMatchObject({ code: 0 });
      expect(reset.out).toContain(`deleted ${seeds.length} sessions, then created ${seeds.length}, kept 0`);
      expect((await resume()).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe('seed command refusals', () => {
  it('needs Redis, and names unknown options (exit 2: usage, a message, no stack trace)', async () => {
    const noRedis = await serverCommand(['seed'], {});
    expect(noRedis.code).toBe(2);
    expect(noRedis.out).not.toMatch(/\n\s+at /);
    expect(noRedis.out).toContain('seed needs REDIS_URL or REDIS_CLUSTER_NODES');
    const bad = await serverCommand(['seed', '--wipe'], {});
    expect(bad.code).toBe(2);
    expect(bad.out).toContain("unknown option '--wipe'");
  });
});
