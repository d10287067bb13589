/**
 * The behaviour numbers live in the spec alone: a copy of spec/openapi.yaml with one Retry-After
 * cap changed is regenerated (tools/generate/write-behaviour.ts <copy> --out <dir>), and the
 * programs, run from their unchanged source with that module in place of generated/behaviour.js
 * (test/helpers/behaviour-substitute.mjs, a Node resolve hook), follow it:
 * - the client's cap (x-retry-policy retryAfter.maxMs): `session-resume-api resume` waits out a
 *   Retry-After of 3 s and resumes with the contract's 10 s cap, and gives up at once with 2 s;
 * - the delivery engine's cap (x-delivery-policy retryAfter.maxMs): the sandbox's delivery of an
 *   event answered 503 with Retry-After: 3600 comes again within seconds only with a 1 s cap, and
 *   `webhook grade` tells the receiver the service retries in 2h (24 h cap) or in 1s;
 * - `client grade` (the same x-retry-policy cap): its long Retry-After is one second beyond the
 *   cap, and a client that keeps the old cap fails the rule under the copy.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { getFreePort } from '../helpers/free-port.js';
import { listen, type Listening } from '../helpers/listen.js';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SUBSTITUTE = join(root, 'test/helpers/behaviour-substitute.mjs');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

type Spec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const original = parse(readFileSync(join(root, 'spec/openapi.yaml'), 'utf8')) as Spec;
const retryPolicy = (spec: Spec) => spec.paths['/v1/sessions/{session_id}/resume'].post['x-retry-policy'];
const deliveryPolicy = (spec: Spec) => spec.webhooks.sessionEvent.post['x-delivery-policy'];

/** Writes the changed copy of the spec and generates its module with the project's generator; returns the module's path. */
function regenerate(change: (spec: Spec) => void): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'spec-change-'));
  dirs.push(dir);
  const spec = structuredClone(original);
  change(spec);
  writeFileSync(join(dir, 'openapi.yaml'), stringify(spec));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'tools/generate/write-behaviour.ts', join(dir, 'openapi.yaml'), '--out', dir],
      { cwd: root },
      (error, _out, stderr) => (error ? reject(new Error(stderr)) : resolve(join(dir, 'behaviour.js'))),
    );
  });
}

/** The environment that runs a program with `module` as its behaviour module (none: the repository's). */
const withModule = (module: string | undefined, env: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '',
  NODE_OPTIONS: `--import=${SUBSTITUTE}`,
  ...(module ? { BEHAVIOUR_MODULE: module } : {}),
  ...env,
});

interface Run {
  code: number;
  stdout: string;
}

/** Runs the CLI from source (cli/main.ts) with `args` and `env`. */
const cli = (args: string[], env: Record<string, string>) =>
  new Promise<Run>((resolve) => {
    execFile(process.execPath, ['--conditions=source', '--import', 'tsx', 'cli/main.ts', ...args], { cwd: root, env, timeout: 90_000 }, (error, stdout) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout }),
    );
  });

describe('the client follows the Retry-After cap of x-retry-policy', () => {
  let server: Listening;
  const attempts = new Map<string, number>();
  beforeAll(async () => {
    // Each session id: 503 with Retry-After: 3 on its first attempt, 200 after.
    server = await listen((req, res) => {
      const id = /\/v1\/sessions\/([^/]+)\/resume/.exec(req.url ?? '')?.[1] ?? '';
      const n = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, n);
      if (n === 1)
        res
          .writeHead(503, { 'content-type': 'application/json', 'retry-after': '3' })
          .end('{"success":false,"error":"service_unavailable","message":"Retry later."}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"message":"Session resumed."}');
    });
  });
  afterAll(() => server.close());

  const resume = (id: string, module: string | undefined) =>
    cli(['resume', id, '--json'], withModule(module, { SESSION_RESUME_BASE_URL: server.url, SESSION_RESUME_API_KEY: 'spec-change-key' }));

  it("waits out a Retry-After within the contract's cap, and gives up on it once the copy lowers the cap below it", async () => {
    const lowered = await regenerate((spec) => {
      retryPolicy(spec).retryAfter.maxMs = 2000;
    });
    const asIs = await resume('sess_as_is', undefined);
    expect(asIs.code).toBe(0);
    expect(JSON.parse(asIs.stdout)).toMatchObject({ kind: 'resumed', attempts: 2 });
    const changed = await resume('sess_changed', lowered);
    expect(changed.code).not.toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ status: 503, attempts: 1 });
    expect(attempts.get('sess_changed')).toBe(1);
  }, 90_000);

  /** A client for `client grade --run`: the CLI's resume, from source, for the 429 ids only (the rules graded here). */
  const RESUME_429 =
    'for id in $SESSION_RESUME_SESSION_IDS; do case $id in *_429*) node --conditions=source --import tsx cli/main.ts resume "$id";; esac; done';
  const grade = (module: string | undefined, client: string) =>
    cli(['client', 'grade', '--json', '--only', 'retry-429,retry-after-cap', '--run', client], withModule(module)).then((run) => ({
      ...run,
      entries: run.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { rule: string; grade: string; evidence: string }),
    }));
  const capRule = (run: Awaited<ReturnType<typeof grade>>) => run.entries.find((e) => e.rule === 'retry-after-cap');

  it('client grade reads the changed cap: its long Retry-After, and the verdict on a client that keeps the old cap, follow the regenerated module', async () => {
    const lowered = await regenerate((spec) => {
      retryPolicy(spec).retryAfter.maxMs = 2000;
    });
    const asIs = await grade(undefined, RESUME_429);
    expect(
      asIs.entries.map((e) => e.grade),
      asIs.stdout,
    ).toEqual(['pass', 'pass']);
    expect(capRule(asIs)?.evidence).toMatch(/429 \(Retry-After: 11\); Retry-After asked for more than the retry policy's cap of 10000 ms: reported/);
    // Grader and client both under the copy: the long Retry-After is 3 s, beyond the 2 s cap, and the client gives up.
    const followed = await grade(lowered, RESUME_429);
    expect(
      followed.entries.map((e) => e.grade),
      followed.stdout,
    ).toEqual(['pass', 'pass']);
    expect(capRule(followed)?.evidence).toMatch(/429 \(Retry-After: 3\); Retry-After asked for more than the retry policy's cap of 2000 ms: reported/);
    // The grader under the copy, the client under the repository's module (10 s cap): it waits the 3 s and retries, which the copy forbids.
    const stale = await grade(lowered, `env -u NODE_OPTIONS -u BEHAVIOUR_MODULE sh -c '${RESUME_429}'`);
    expect(capRule(stale)?.grade, stale.stdout).toBe('fail');
    expect(capRule(stale)?.evidence).toMatch(/retried, although Retry-After asked for more than the retry policy's cap of 2000 ms/);
    expect(stale.code).toBe(1);
  }, 180_000);
});

describe('the delivery engine follows the Retry-After cap of x-delivery-policy', () => {
  const oneSecondCap = () =>
    regenerate((spec) => {
      deliveryPolicy(spec).retryAfter.maxMs = 1000;
    });

  it('the sandbox delivers again within seconds only when the copy caps Retry-After at 1 s', async () => {
    const lowered = await oneSecondCap();
    const runs: Record<string, number> = {};
    for (const [name, module] of [
      ['changed', lowered],
      ['as-is', undefined],
    ] as const) {
      let hits = 0;
      const receiver = await listen((_req: IncomingMessage, res) => {
        hits += 1;
        res.writeHead(503, { 'retry-after': '3600' }).end();
      });
      const port = await getFreePort();
      const sandbox = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', '--sandbox'], {
        cwd: root,
        env: withModule(module, {
          LOG_LEVEL: 'warn',
          SANDBOX_PORT: String(port),
          WEBHOOK_URL: `${receiver.url}/hook`,
          WEBHOOK_RETRY_SCHEDULE: '0,100ms,100ms',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let log = '';
      sandbox.stdout.on('data', (d: Buffer) => (log += d.toString()));
      sandbox.stderr.on('data', (d: Buffer) => (log += d.toString()));
      try {
        await waitFor(() => /Key: +sandbox_\S+/.test(log), { timeoutMs: 60_000, what: 'the sandbox banner' });
        const key = /Key: +(sandbox_\S+)/.exec(log)?.[1] ?? '';
        const answer = await fetch(`http://127.0.0.1:${port}/v1/sessions/sess_paused_1/resume`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}` },
        });
        expect(answer.status).toBe(200);
        await waitFor(() => hits >= 1, { timeoutMs: 10_000, what: 'the first delivery' });
        // The lowered cap brings the second attempt after 1 s; the contract's waits the hour asked.
        await waitFor(() => hits >= 2, { timeoutMs: 8000, what: 'a second delivery' }).catch(() => undefined);
        runs[name] = hits;
      } finally {
        sandbox.kill('SIGTERM');
        await receiver.close();
      }
    }
    expect(runs['changed']).toBeGreaterThanOrEqual(2);
    expect(runs['as-is']).toBe(1);
  }, 180_000);

  it('webhook grade says when the service sends again by the cap of the module it runs with', async () => {
    const lowered = await oneSecondCap();
    const receiver = await listen((_req, res) => res.writeHead(503, { 'retry-after': '7200' }).end());
    try {
      const args = ['webhook', 'grade', `${receiver.url}/hook`, '--insecure-localhost', '--json', '--delay-ms', '100', '--burst', '5', '--settle-ms', '500'];
      const ack = async (module: string | undefined) => {
        const run = await cli(args, withModule(module));
        expect(run.code).toBe(1);
        const entries = run.stdout
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { rule: string; next?: string });
        // What the service does about the failure is said in `next`, once per report.
        return entries.find((e) => e.rule === 'ack')?.next ?? '';
      };
      expect(await ack(undefined)).toMatch(/sends the event again in 2h,/);
      expect(await ack(lowered)).toMatch(/sends the event again in 5s,/);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
