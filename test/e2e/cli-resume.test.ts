/**
 * The `session-resume-api resume` command run as a process (the built command, cli/bin/session-resume-api.js), against the
 * stub server and the Prism mock: output and exit codes per outcome (issue #4).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getFreePort } from '../helpers/free-port.js';
import { startPrism, type PrismServer } from '../helpers/prism.js';
import { startResumeStub, type ResumeStub } from '../helpers/resume-stub.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with `args` and only the given SESSION_RESUME_* variables. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SESSION_RESUME_')));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['cli/bin/session-resume-api.js', ...args],
      { cwd: root, env: { ...base, ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

let stub: ResumeStub;
let prism: PrismServer;
let env: Record<string, string>;
beforeAll(async () => {
  [stub, prism] = await Promise.all([startResumeStub(), startPrism()]);
  env = { SESSION_RESUME_BASE_URL: stub.url, SESSION_RESUME_API_KEY: 'cli-key' };
});
afterAll(async () => {
  await Promise.all([stub?.stop(), prism?.stop()]);
});

const noStack = (run: Run) => expect(`${run.stdout}${run.stderr}`).not.toMatch(/\n\s+at /);

describe('session-resume-api resume', () => {
  it('exits 0 and prints the message when resumed, reading base URL and key from the environment', async () => {
    const run = await cli(['resume', 'sess_paused_1'], env);
    expect(run).toMatchObject({ code: 0, stdout: 'Resumed session sess_paused_1: Session sess_paused_1 resumed.\n' });
    expect(stub.requests.at(-1)?.headers.authorization).toBe('Bearer cli-key');
  });

  it('takes --base-url and --api-key over the environment, and prints --json', async () => {
    const run = await cli(['resume', 'a/b c', '--base-url', stub.url, '--api-key', 'flag-key', '--json'], {
      SESSION_RESUME_BASE_URL: 'http://127.0.0.1:1',
      SESSION_RESUME_API_KEY: 'env-key',
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ sessionId: 'a/b c', kind: 'resumed', status: 200, result: { success: true } });
    expect(stub.requests.at(-1)?.headers.authorization).toBe('Bearer flag-key');
  });

  it('sends --idempotency-key as Idempotency-Key (and a random one without it)', async () => {
    expect((await cli(['resume', 'sess_paused_1', '--idempotency-key', 'cli-key-1'], env)).code).toBe(0);
    expect(stub.requests.at(-1)?.headers['idempotency-key']).toBe('cli-key-1');
    await cli(['resume', 'sess_paused_1'], env);
    expect(stub.requests.at(-1)?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['np-200', 3, /is not paused \(HTTP 200\)/],
    ['np-text', 3, /is not paused \(HTTP 409\)/],
    ['unknown_1', 4, /was not found \(HTTP 404\)/],
    ['forbidden', 5, /API key was refused \(HTTP 403\)[\s\S]*SESSION_RESUME_API_KEY/],
    ['rl-seconds', 6, /Rate limited \(HTTP 429\)[\s\S]*Retry after 120 s/],
    ['html-500', 1, /Unexpected answer \(HTTP 500 after \d+ attempts\)/],
  ])('stub %s: exits %i', async (id, code, message) => {
    const run = await cli(['resume', id], env);
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(message);
    noStack(run);
  });

  it('warns that a not_paused after a retry may mean the first attempt resumed the session', async () => {
    const run = await cli(['resume', 'reset-after-resume'], env);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/not paused \(HTTP 409 after 2 attempts\)[\s\S]*An earlier attempt may have resumed it/);
  });

  it.each([
    ['code=409, example=notPaused', 3, 'not_paused'],
    ['code=404', 4, 'not_found'],
    ['code=401', 5, 'unauthorized'],
    ['code=429', 6, 'rate_limited'],
  ])('Prism %s: exits %i with kind %s in --json', async (prefer, code, kind) => {
    const run = await cli(['resume', 'sess_1', '--json', '--retries', '0', '-H', `Prefer: ${prefer}`], {
      SESSION_RESUME_BASE_URL: prism.url,
      SESSION_RESUME_API_KEY: 'k',
    });
    expect(run.code).toBe(code);
    expect(JSON.parse(run.stdout)).toMatchObject({ kind });
  });

  it('exits 2 with a clear message when the key is missing', async () => {
    const run = await cli(['resume', 'sess_1'], { SESSION_RESUME_BASE_URL: stub.url });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('session-resume-api: no API key: set SESSION_RESUME_API_KEY (or pass --api-key).\n');
  });

  it('exits 2 for usage errors: no session id, unknown option, bad base URL, bad number', async () => {
    for (const args of [['resume'], ['resume', 'x', '--nope'], ['resume', 'x', '--base-url', 'not a url'], ['resume', 'x', '--retries', 'many'], ['nope']]) {
      const run = await cli(args, env);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr.length).toBeGreaterThan(0);
      noStack(run);
    }
  });

  it('exits 1 with a clear message, not a stack trace, when the server is unreachable', async () => {
    const run = await cli(['resume', 'sess_1', '--retries', '0'], { ...env, SESSION_RESUME_BASE_URL: `http://127.0.0.1:${await getFreePort()}` });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^session-resume-api: Cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/sessions\/sess_1\/resume: fetch failed \(ECONNREFUSED\)\. Check --base-url/,
    );
    noStack(run);
  });

  it('exits 1 on a timeout', async () => {
    const run = await cli(['resume', 'hang', '--timeout-ms', '300'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/No answer from .* within 300 ms/);
  });

  it('prints --help for the program and the command, exit 0', async () => {
    const top = await cli(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/resume \[options\] <session-id>/);
    const sub = await cli(['resume', '--help']);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toMatch(/--base-url <url>[\s\S]*--api-key <key>[\s\S]*--json[\s\S]*Exit codes: 0 resumed, 3 not_paused/);
  });
});
