/**
 * Failover under load: 6 nodes (3 primaries, 1 replica each, cluster-node-timeout 1 s) on
 * loopback, two server processes, resumes spread over both while a primary is SIGKILLed.
 * Every answer is 200, 409 or 503; no session gets two 200s; a 409 comes only for a session
 * that some request may have resumed (a 200, or a 503 whose outcome is unknown); and the
 * service answers without 503 again on its own once the replica has taken over.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import { waitFor } from '../../helpers/wait-for.js';

const API_KEY = 'failover-key';
const SESSIONS = 400;
const ids = Array.from({ length: SESSIONS }, (_, i) => `fo-${i}`);
const started: ServerProcess[] = [];
let cluster: RedisCluster;

beforeAll(async () => {
  const sessionsFile = join(mkdtempSync(join(tmpdir(), 'sessions-')), 'sessions.json');
  writeFileSync(sessionsFile, JSON.stringify(ids.map((id) => ({ id, status: 'paused' }))));
  cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 1, nodeTimeoutMs: 1000 });
  const env = { API_KEYS: API_KEY, REDIS_CLUSTER_NODES: cluster.nodes.join(','), SESSIONS_FILE: sessionsFile };
  started.push(...(await Promise.all([startServerProcess(env), startServerProcess(env)])));
}, 120_000);

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop('SIGKILL')));
  await cluster?.stop();
});

type Answer = { id: string; status: number };

async function resume(url: string, id: string): Promise<Answer> {
  try {
    const res = await fetch(`${url}/v1/sessions/${id}/resume`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}` },
      signal: AbortSignal.timeout(20_000),
    });
    await res.arrayBuffer();
    return { id, status: res.status };
  } catch {
    return { id, status: 0 }; // no answer: as unknown as a 503
  }
}

describe('failover of a primary under load', () => {
  it('answers 200, 409 or 503 only, never a wrong one, and recovers by itself', async () => {
    const answers: Answer[] = [];
    let stop = false;
    let turn = 0;
    // 16 workers walk the sessions in order, each session asked several times over both instances.
    const worker = async () => {
      while (!stop) {
        const n = turn++;
        const id = ids[Math.floor(n / 3) % SESSIONS]!;
        answers.push(await resume(started[n % 2]!.url, id));
      }
    };
    const load = Promise.all(Array.from({ length: 16 }, worker));
    await waitFor(() => answers.length >= 150, { timeoutMs: 60_000, what: 'load running' });
    const killed = await cluster.killPrimary(ids[Math.floor(turn / 3) % SESSIONS]!);
    const countAtKill = answers.length;
    const killedAt = Date.now();
    await cluster.waitUntilOk(60_000);
    const failoverMs = Date.now() - killedAt;
    await waitFor(() => answers.length >= countAtKill + 300, { timeoutMs: 60_000, what: 'load after failover' });
    stop = true;
    await load;

    // Service is back on its own: a full pass over every session without a single 503.
    let final: Answer[] = [];
    await waitFor(
      async () => {
        final = await Promise.all(ids.map((id, i) => resume(started[i % 2]!.url, id)));
        answers.push(...final);
        return final.every((a) => a.status === 200 || a.status === 409);
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'every session answering without 503' },
    );

    const byId = new Map<string, number[]>();
    for (const { id, status } of answers) byId.set(id, [...(byId.get(id) ?? []), status]);
    const unexpected = answers.filter((a) => ![200, 409, 503, 0].includes(a.status));
    const twice = [...byId].filter(([, s]) => s.filter((x) => x === 200).length > 1);
    const wrongNotPaused = [...byId].filter(([, s]) => s.includes(409) && !s.includes(200) && !s.includes(503) && !s.includes(0));
    expect(unexpected).toEqual([]);
    expect(twice).toEqual([]);
    expect(wrongNotPaused).toEqual([]);
    // The failover was felt (some 503s) and the run covered every session.
    expect(answers.some((a) => a.status === 503 || a.status === 0)).toBe(true);
    expect(byId.size).toBe(SESSIONS);
    expect((await cluster.primaries()).map((n) => n.port)).not.toContain(killed.port);
    console.info(
      `failover: cluster ok ${failoverMs} ms after the kill; ${answers.length} answers (${answers.filter((a) => a.status === 503 || a.status === 0).length} 503/none), ` +
        `${[...byId].filter(([, s]) => s.includes(200)).length} sessions resumed once`,
    );
  }, 240_000);
});
