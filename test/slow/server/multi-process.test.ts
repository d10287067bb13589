/**
 * The reference server as real processes (`node --import tsx server/main.ts`) sharing the
 * test Redis under a random key prefix: the concurrency rule across processes, shared
 * seeding and rate limits, startup refusals, graceful shutdown.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { deletePrefix } from '../../helpers/redis-keys.js';
import { waitFor } from '../../helpers/wait-for.js';
import { runServerExpectingExit, startServerProcess, type ServerProcess } from '../../helpers/server-process.js';

const API_KEY = 'e2e-key';
const prefix = `test:e2e:${randomUUID()}:`;
const started: ServerProcess[] = [];
let sessionsFile: string;

const seeds = [
  { id: 'hot', status: 'paused' },
  { id: 'p2', status: 'paused' },
  { id: 'slow', status: 'paused' },
  { id: 'r1', status: 'running' },
];

async function start(env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess({
    API_KEYS: API_KEY,
    REDIS_URL: inject('redisUrl'),
    REDIS_KEY_PREFIX: prefix,
    SESSIONS_FILE: sessionsFile,
    ...env,
  });
  started.push(server);
  return server;
}

const resume = (url: string, id: string) => fetch(`${url}/v1/sessions/${id}/resume`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` } });

beforeAll(() => {
  sessionsFile = join(mkdtempSync(join(tmpdir(), 'sessions-')), 'sessions.json');
  writeFileSync(sessionsFile, JSON.stringify(seeds));
});

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop('SIGKILL')));
  await deletePrefix(inject('redisUrl'), prefix);
});

describe('two processes sharing Redis', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  beforeAll(async () => {
    [a, b] = await Promise.all([start(), start()]);
  });

  it('of 200 concurrent resumes of one paused session, spread over both processes, exactly one gets 200', async () => {
    const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => resume(i % 2 ? a.url : b.url, 'hot').then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(199);
  });

  it('a third process started with the same file does not overwrite the shared state', async () => {
    expect((await resume(a.url, 'p2')).status).toBe(200);
    const c = await start();
    expect((await resume(c.url, 'p2')).status).toBe(409);
    expect((await resume(c.url, 'hot')).status).toBe(409);
    expect((await resume(c.url, 'r1')).status).toBe(409);
  });
});

describe('rate limit across processes', () => {
  it('counts per API key in Redis: a limit of 3 holds over two processes', async () => {
    const env = { RATE_LIMIT: '3', RATE_LIMIT_WINDOW_MS: '60000', REDIS_KEY_PREFIX: `${prefix}rl:` };
    const [x, y] = await Promise.all([start(env), start(env)]);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await resume(i % 2 ? x.url : y.url, 'r1')).status);
    expect(statuses).toEqual([409, 409, 409, 429, 429, 429]);
  });
});

describe('startup', () => {
  it('refuses an http:// WEBHOOK_URL with a message that webhook URLs must use HTTPS, even with WEBHOOK_ALLOW_PRIVATE=1', async () => {
    const envs: Record<string, string>[] = [
      { WEBHOOK_URL: 'http://hooks.example.org/in' },
      { WEBHOOK_URL: 'http://127.0.0.1:8443/in', WEBHOOK_ALLOW_PRIVATE: '1' },
    ];
    for (const env of envs) {
      const { code, output } = await runServerExpectingExit(env);
      expect(code).toBe(1);
      expect(output).toContain('Webhook URLs must use HTTPS');
      expect(output).not.toMatch(/\n\s+at /); // a message, not a stack trace
    }
  });

  it('refuses an unreadable SESSIONS_FILE and a Redis that does not answer, saying what to fix', async () => {
    const missing = await runServerExpectingExit({ SESSIONS_FILE: '/nonexistent/sessions.json' });
    expect(missing.code).toBe(1);
    expect(missing.output).toContain('SESSIONS_FILE /nonexistent/sessions.json cannot be read');
    const noRedis = await runServerExpectingExit({ REDIS_URL: 'redis://127.0.0.1:1' });
    expect(noRedis.code).toBe(1);
    expect(noRedis.output).toMatch(/Redis at 127\.0\.0\.1:1 did not answer/);
  });

  it('without API_KEYS and SESSIONS_FILE: prints a generated key and the demo set, and that key works', async () => {
    const server = await startServerProcess({ LOG_LEVEL: 'info' });
    started.push(server);
    // The generated key is said once, in the banner on stderr; stdout carries the JSON log alone.
    const key = /Development API key \(generated for this run; set API_KEYS to choose your own\): (\S+)/.exec(server.stderr())?.[1];
    expect(key).toMatch(/^dev_/);
    expect(server.stdout()).not.toContain(key);
    expect(server.output()).toContain('sess_paused_1');
    const res = await fetch(`${server.url}/v1/sessions/sess_paused_1/resume`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
  });
});

describe('graceful shutdown', () => {
  it('on SIGTERM stops accepting, finishes the in-flight request, then exits 0', async () => {
    const server = await start({ LOG_LEVEL: 'info' });
    const { hostname, port } = new URL(server.url);
    let exit: Promise<number | null> | undefined;
    // An in-flight request: headers sent, body still coming. `Expect: 100-continue` makes the
    // server say when it has the headers (node answers 100 before the request handler runs), so
    // the signal never arrives while the connection is still in the listen backlog, which
    // close() would reset (seen on a loaded box).
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: hostname,
          port,
          method: 'POST',
          path: '/v1/sessions/slow/resume',
          headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'content-length': '2', expect: '100-continue' },
        },
        (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      const stopMidRequest = async () => {
        exit = server.stop('SIGTERM');
        // Once the signal has arrived, new connections are refused; then the body completes.
        await waitFor(
          () =>
            fetch(`${server.url}/healthz`).then(
              () => false,
              () => true,
            ),
          { what: 'listener closed' },
        );
        req.end('}');
      };
      req.once('continue', () => {
        req.write('{');
        setTimeout(() => void stopMidRequest().catch(reject), 100);
      });
      req.flushHeaders();
    });
    const { status, body } = await answer.catch((error: unknown) => {
      throw new Error(`the in-flight request failed; server output:\n${server.output()}`, { cause: error });
    });
    expect(status).toBe(200);
    expect(body).toContain('resumed');
    expect(await exit).toBe(0);
  });
});
