/**
 * `client grade` against real clients, each run by the grader as a process: the typed client of
 * this toolkit passes every rule; a bare openapi-fetch client and a naive fetch retry loop
 * without a key each fail exactly the rules they break, shown by the exit code and the rules'
 * JSON entries (clients of other libraries: witness/client-grade-witness.test.ts). Also
 * `--serve` driven by hand (here: by the typed client, then SIGINT), and the usage errors.
 */
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLIENT_RULES } from '../../cli/client-grade/client-rules.js';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CLI = ['--conditions=source', '--import', 'tsx', 'cli/main.ts', 'client', 'grade'];

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
    execFile(process.execPath, [...CLI, ...args], { cwd: root, timeout: 200_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, entries: parse(stdout), output: `${stdout}${stderr}` });
    });
  });

const rules = (run: Run, grade: Entry['grade']) => run.entries.filter((e) => e.grade === grade).map((e) => e.rule);
const entry = (run: Run, rule: string) => run.entries.find((e) => e.rule === rule) as Entry;
const report = (run: Run) => JSON.stringify(run.entries, null, 1) + run.output.slice(-2000);

/** The rules a client fails, in the list's order. */
const failing = (ids: string[]) => CLIENT_RULES.map((r) => r.id as string).filter((id) => ids.includes(id));

describe.concurrent('client grade --run', () => {
  it('our typed client passes every rule, in the list order', { timeout: 220_000 }, async () => {
    const run = await grade('--json', '--run', 'node examples/graded-clients/typed-client.mjs');
    expect(
      run.entries.map((e) => e.rule),
      report(run),
    ).toEqual(CLIENT_RULES.map((r) => r.id));
    expect(rules(run, 'fail').concat(rules(run, 'n/o')), report(run)).toEqual([]);
    expect(run.code).toBe(0);
    expect(entry(run, 'answer-lost').evidence).toMatch(/Idempotent-Replayed\): ended as resumed/);
    expect(entry(run, 'retry-500').evidence).toMatch(/the retry policy retries a 500 with the same Idempotency-Key\.$/);
    expect(entry(run, 'backoff').evidence).toMatch(
      /before retry 1: \d+–\d+ ms of 20 calls \(bound 250 ms\), before retry 2: \d+–\d+ ms of 20 calls \(bound 500 ms\): within the bounds and spread/,
    );
    expect(entry(run, 'timeout').evidence).toMatch(/abandoned after \d+ ms/);
  });

  it(
    'a bare openapi-fetch client (no key, no retry, no deadline) fails the 503, 429 and timeout rules; not retrying a 500 or a lost connection without a key passes',
    { timeout: 220_000 },
    async () => {
      const run = await grade('--json', '--run', 'node examples/graded-clients/bare-openapi-fetch.mjs');
      expect(rules(run, 'fail'), report(run)).toEqual(failing(['retry-503', 'retry-429', 'timeout']));
      expect(rules(run, 'n/o')).toEqual(['backoff']);
      expect(run.code).toBe(1);
      expect(entry(run, 'retry-503').evidence).toMatch(/^sess_grade_503: 1 attempt: 503 \(Retry-After: 3\): not retried/);
      expect(entry(run, 'retry-500').evidence).toMatch(
        /^sess_grade_500: 1 attempt: 500; the call was sent without an Idempotency-Key and, after a 500, the resume may have been applied/,
      );
      expect(entry(run, 'idempotency-key').evidence).toMatch(
        /^no attempt of the 32 calls carried an Idempotency-Key, which the retry policy recommends and does not require/,
      );
      expect(entry(run, 'timeout').evidence).toMatch(/no answer for 12000 ms and the client was still waiting/);
    },
  );

  it(
    'a naive fetch loop (every failure, fixed 500 ms, 4 attempts, no key) fails every rule but request and idempotency-key',
    { timeout: 220_000 },
    async () => {
      const run = await grade('--json', '--run', 'node examples/graded-clients/naive-retry.mjs');
      expect(rules(run, 'pass'), report(run)).toEqual(['request', 'idempotency-key']);
      expect(run.code).toBe(1);
      expect(entry(run, 'retry-503').evidence).toMatch(/retried after \d+ ms, sooner than the 3000 ms the answer asked for/);
      expect(entry(run, 'retry-500').evidence).toMatch(
        /retried, although the call was sent without an Idempotency-Key and, after a 500, the resume may have been applied/,
      );
      expect(entry(run, 'answer-lost').evidence).toMatch(
        /connection reset, \d+ ms later 409.*: retried, although the call was sent without an Idempotency-Key/,
      );
      expect(entry(run, 'no-retry-4xx').evidence).toMatch(/sess_grade_400 \(400\) was sent 4 times/);
      expect(entry(run, 'backoff').evidence).toMatch(/4 attempts against a 503 on every one; the retry policy allows at most 3/);
    },
  );
});

describe('client grade --serve', () => {
  it('prints the variables, waits while a client resumes the ids, and grades on SIGINT', { timeout: 120_000 }, async () => {
    const child = spawn(process.execPath, [...CLI, '--serve', '--json', '--only', 'request,retry-503,idempotency-key'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
      execFile(
        process.execPath,
        ['examples/graded-clients/typed-client.mjs'],
        { cwd: root, env: { ...process.env, ...vars, SESSION_RESUME_SESSION_IDS: ids }, timeout: 60_000 },
        (error) => (error ? reject(error) : resolve()),
      ),
    );
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const run = { code: 0, entries: parse(stdout), output: stderr };
    expect(
      run.entries.map((e) => [e.rule, e.grade]),
      report(run),
    ).toEqual([
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
