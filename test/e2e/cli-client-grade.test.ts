/**
 * `client grade` against real clients, each run by the grader as a process: the typed client of
 * this toolkit passes every rule; a bare openapi-fetch client, a naive fetch retry loop without
 * a key and a curl loop with curl's own retries each fail exactly the rules they break, shown by the exit code and the
 * rules' JSON entries. Also `--serve` driven by hand (here: by the typed client, then SIGINT),
 * and the usage errors.
 */
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLIENT_RULES } from '../../client/cli/client-grade/client-rules.js';
import { RESUME_RETRY_POLICY } from '@session-resume-api/runtime/behaviour';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CLI = ['--import', 'tsx', 'client/cli/main.ts', 'client', 'grade'];

interface Entry {
  rule: string;
  title: string;
  grade: 'pass' | 'fail' | 'n/o';
  evidence: string;
}
interface Run {
  code: number;
  entries: Entry[];
  output: string;
}

const parse = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Entry);

const grade = (...args: string[]) =>
  new Promise<Run>((resolve) => {
    execFile(process.execPath, [...CLI, ...args], { cwd: root, timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, entries: parse(stdout), output: `${stdout}${stderr}` });
    });
  });

const rules = (run: Run, grade: Entry['grade']) => run.entries.filter((e) => e.grade === grade).map((e) => e.rule);
const entry = (run: Run, rule: string) => run.entries.find((e) => e.rule === rule) as Entry;
const report = (run: Run) => JSON.stringify(run.entries, null, 1) + run.output.slice(-2000);

/** Whether the policy retries a 500: the 500 rule expects what it says. */
const retries500 = (RESUME_RETRY_POLICY.retryableStatuses as readonly number[]).includes(500);
/** Whether a retry after a Retry-After beyond the cap breaks the policy (it gives up there). */
const givesUpAboveCap = (RESUME_RETRY_POLICY.retryAfter.aboveMax as string) === 'giveUp';
/** The rules a client fails, in the list's order, with the 500 rule when `fails500(policyRetries500)`. */
const failing = (ids: string[], fails500: (retried: boolean) => boolean) =>
  CLIENT_RULES.map((r) => r.id as string).filter((id) => (id === 'retry-500' ? fails500(retries500) : ids.includes(id)));

describe.concurrent('client grade --run', () => {
  it('our typed client passes every rule, in the list order', { timeout: 120_000 }, async () => {
    const run = await grade('--json', '--run', 'node examples/graded-clients/typed-client.mjs');
    expect(run.entries.map((e) => e.rule), report(run)).toEqual(CLIENT_RULES.map((r) => r.id));
    expect(rules(run, 'fail').concat(rules(run, 'n/o')), report(run)).toEqual([]);
    expect(run.code).toBe(0);
    expect(entry(run, 'answer-lost').evidence).toMatch(/Idempotent-Replayed\): ended as resumed/);
    expect(entry(run, 'timeout').evidence).toMatch(/abandoned after \d+ ms/);
  });

  it('a bare openapi-fetch client fails the retry, key, lost-answer and timeout rules; its back-off is not observable', { timeout: 120_000 }, async () => {
    const run = await grade('--json', '--run', 'node examples/graded-clients/bare-openapi-fetch.mjs');
    const expected = failing(['retry-503', 'retry-429', 'retry-network', 'idempotency-key', 'answer-lost', 'timeout'], (retried) => retried);
    expect(rules(run, 'fail'), report(run)).toEqual(expected);
    expect(rules(run, 'n/o')).toEqual(['backoff']);
    expect(run.code).toBe(1);
    expect(entry(run, 'retry-503').evidence).toMatch(/^sess_grade_503: 1 attempt: 503 \(Retry-After: 1\): not retried/);
    expect(entry(run, 'idempotency-key').evidence).toMatch(/^16 of 16 attempts carried no Idempotency-Key/);
    expect(entry(run, 'answer-lost').evidence).toMatch(/not retried, so the client never learned that the session resumed/);
    expect(entry(run, 'timeout').evidence).toMatch(/no answer for 12000 ms and the client was still waiting/);
  });

  it('a naive fetch loop (every failure, fixed 500 ms, 4 attempts, no key) fails the Retry-After, key, lost-answer, 4xx, not_paused, back-off and timeout rules', { timeout: 120_000 }, async () => {
    const run = await grade('--json', '--run', 'node examples/graded-clients/naive-retry.mjs');
    const expected = failing(
      ['retry-503', 'retry-429', 'retry-after-cap', 'idempotency-key', 'answer-lost', 'no-retry-4xx', 'not-paused', 'backoff', 'timeout'],
      (retried) => !retried,
    );
    expect(rules(run, 'fail'), report(run)).toEqual(expected);
    expect(run.code).toBe(1);
    expect(entry(run, 'retry-429').evidence).toMatch(/retried after \d+ ms, sooner than the 2000 ms the answer asked for/);
    expect(entry(run, 'answer-lost').evidence).toMatch(/409.*read as not_paused although this call resumed the session/);
    expect(entry(run, 'no-retry-4xx').evidence).toMatch(/sess_grade_400 \(400\) was sent 4 times/);
    expect(entry(run, 'backoff').evidence).toMatch(/4 attempts against a 503 on every one; the retry policy allows at most 3/);
  });

  it('a curl loop with --retry 2 waits what Retry-After asks but fails the network, key, lost-answer and back-off rules', { timeout: 120_000 }, async () => {
    const run = await grade('--json', '--run', 'sh examples/graded-clients/curl-loop.sh');
    const expected = failing(['retry-network', 'idempotency-key', 'answer-lost', 'backoff', ...(givesUpAboveCap ? ['retry-after-cap'] : [])], (retried) => !retried);
    expect(rules(run, 'fail'), report(run)).toEqual(expected);
    expect(run.code).toBe(1);
    expect(entry(run, 'retry-after-cap').evidence).toMatch(/^sess_grade_429_long: 2 attempts: 429 \(Retry-After: 11\), \d+ ms later 200/);
    expect(entry(run, 'backoff').evidence).toMatch(/the same waits on every call, no jitter/);
    expect(entry(run, 'timeout').grade).toBe('pass');
  });
});

describe('client grade --serve', () => {
  it('prints the variables, waits while a client resumes the ids, and grades on SIGINT', { timeout: 120_000 }, async () => {
    const child = spawn(process.execPath, [...CLI, '--serve', '--json', '--only', 'request,retry-503,idempotency-key'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await waitFor(() => stderr.includes('SESSION_RESUME_SESSION_IDS='), { timeoutMs: 30_000, what: 'the --serve banner' });
    const vars = Object.fromEntries([...stderr.matchAll(/^export (SESSION_RESUME_\w+)="([^"]*)"$/gm)].map((m) => [m[1], m[2]]));
    expect(Object.keys(vars).sort()).toEqual(['SESSION_RESUME_API_KEY', 'SESSION_RESUME_BASE_URL', 'SESSION_RESUME_SESSION_IDS']);
    // By hand: the first three ids only (the rules chosen need no more).
    const ids = (vars.SESSION_RESUME_SESSION_IDS as string).split(' ').slice(0, 3).join(' ');
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, ['examples/graded-clients/typed-client.mjs'], { cwd: root, env: { ...process.env, ...vars, SESSION_RESUME_SESSION_IDS: ids }, timeout: 60_000 }, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const run = { code: 0, entries: parse(stdout), output: stderr };
    expect(run.entries.map((e) => [e.rule, e.grade]), report(run)).toEqual([
      ['request', 'pass'],
      ['retry-503', 'pass'],
      ['idempotency-key', 'pass'],
    ]);
  });
});

describe('client grade usage', () => {
  it('needs exactly one of --run and --serve (exit 2)', { timeout: 60_000 }, async () => {
    expect((await grade()).code).toBe(2);
    expect((await grade('--run', 'true', '--serve')).code).toBe(2);
  });

  it('names a busy --port (exit 2), and an unknown rule (exit 2)', { timeout: 60_000 }, async () => {
    const busy = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => busy.once('listening', resolve));
    const port = String((busy.address() as { port: number }).port);
    const run = await grade('--run', 'true', '--port', port);
    busy.close();
    expect(run.code).toBe(2);
    expect(run.output).toMatch(new RegExp(`cannot listen on 127.0.0.1:${port} \\(EADDRINUSE\\)`));
    expect((await grade('--run', 'true', '--only', 'retry-999')).output).toMatch(/no rule retry-999; the rules are request, retry-503/);
  });

  it('a client that sends nothing fails the request rule and leaves the others not observable', { timeout: 60_000 }, async () => {
    const run = await grade('--json', '--run', 'true');
    expect(rules(run, 'fail')).toEqual(['request']);
    expect(rules(run, 'pass')).toEqual([]);
    expect(run.code).toBe(1);
  });
});
