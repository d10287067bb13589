/** `session-resume-api webhook check|send` run as processes against a real HTTPS receiver on loopback. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/tls.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
/** Runs the built command (cli/bin) and collects its exit code and output. */
const cli = (...args: string[]) =>
  new Promise<Run>((resolve) => {
    execFile(process.execPath, ['cli/bin/session-resume-api.js', ...args], { cwd: root, timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });

let ok: HttpsReceiver;
let failing: HttpsReceiver;
let dir: string;
beforeAll(async () => {
  ok = await startHttpsReceiver();
  failing = await startHttpsReceiver((_req, res) => void res.writeHead(500).end('store down'));
  dir = mkdtempSync(join(tmpdir(), 'cli-webhook-'));
});
afterAll(async () => {
  await Promise.all([ok.close(), failing.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const noStack = (run: Run) => expect(`${run.stdout}${run.stderr}`).not.toMatch(/\n\s+at /);

describe('webhook check', () => {
  it('passes every line against the local HTTPS receiver with --insecure-localhost', async () => {
    const run = await cli('webhook', 'check', `${ok.origin}/hooks/tok`, '--insecure-localhost');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.map((l) => l.slice(0, 4).trim())).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    expect(run.stdout).toMatch(/host resolves\s+127\.0\.0\.1 \(loopback\)/);
    expect(run.stdout).toMatch(/TLS handshake\s+CN=localhost, expires .+ GMT/);
    expect(run.stdout).toMatch(/answers 200 in 5 s\s+200 in \d+ ms/);
    const sent = JSON.parse(ok.requests.at(-1)?.body ?? '');
    expect(contract.validate('SessionEvent', sent).ok).toBe(true);
  });

  it('fails at the HTTPS line for an http:// URL, exit 1', async () => {
    const run = await cli('webhook', 'check', 'http://127.0.0.1:9/h');
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^ok\s+URL valid/);
    expect(lines[1]).toMatch(/^FAIL\s+HTTPS\s+.*must use HTTPS/);
    noStack(run);
  });

  it('fails at "address allowed" for loopback without --insecure-localhost', async () => {
    const run = await cli('webhook', 'check', `${ok.origin}/h`);
    expect(run.code).toBe(1);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^FAIL\s+address allowed\s+.*loopback/);
  });

  it('fails at the 200 line for a receiver answering 500', async () => {
    const run = await cli('webhook', 'check', `${failing.origin}/h`, '--insecure-localhost');
    expect(run.code).toBe(1);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^FAIL\s+answers 200 in 5 s\s+.*answered 500/);
  });
});

describe('webhook send', () => {
  it('delivers 5 identical payloads with --times 5', async () => {
    const before = ok.requests.length;
    const run = await cli(
      'webhook',
      'send',
      `${ok.origin}/h`,
      '--event',
      'session.resumed',
      '--session',
      'sess_paused_1',
      '--times',
      '5',
      '--concurrency',
      '2',
      '--insecure-localhost',
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({ sent: 5, delivered: 5, failed: 0 });
    const bodies = ok.requests.slice(before).map((q) => q.body);
    expect(bodies).toHaveLength(5);
    expect(new Set(bodies).size).toBe(1);
    const payload = JSON.parse(bodies[0] ?? '');
    expect(payload).toMatchObject({ event: 'session.resumed', session: { id: 'sess_paused_1' } });
    expect(contract.validate('SessionEvent', payload).ok).toBe(true);
  });

  it('reports failures by reason and exits 1', async () => {
    const run = await cli(
      'webhook',
      'send',
      `${failing.origin}/h`,
      '--event',
      'e',
      '--session',
      's',
      '--timestamp',
      't1',
      '--times',
      '2',
      '--insecure-localhost',
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('sent 2: 0 delivered, 2 failed');
    expect(run.stdout).toMatch(/bad_status: 2/);
    expect(failing.requests.map((q) => q.body)).toContain('{"event":"e","session":{"id":"s"},"timestamp":"t1"}');
  });

  it('exits 2 on usage errors, without a stack trace', async () => {
    const missing = await cli('webhook', 'send', `${ok.origin}/h`, '--event', 'e');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--session/);
    noStack(missing);
    const badNumber = await cli('webhook', 'send', `${ok.origin}/h`, '--event', 'e', '--session', 's', '--times', '0');
    expect(badNumber.code).toBe(2);
    const badCa = join(dir, 'missing.pem');
    const unreadable = await cli('webhook', 'check', `${ok.origin}/h`, '--ca', badCa);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toContain(badCa);
    noStack(unreadable);
  });

  it('shows help on every command with exit 0', async () => {
    for (const args of [['--help'], ['webhook', '--help'], ['webhook', 'check', '--help'], ['webhook', 'send', '--help']]) {
      const run = await cli(...args);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Usage: session-resume-api');
    }
  });
});
