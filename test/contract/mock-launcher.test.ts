/**
 * `npm run mock` as a user runs it: starts Prism on PORT, prints base URL, sample key and
 * the scenario table and answers the examples; its entry point forwards SIGTERM to Prism
 * (issue #6).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listScenarios } from '@session-resume-api/runtime/scenarios';
import { getFreePort } from '../helpers/free-port.js';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let proc: ChildProcess;
let output = '';
let port: number;

beforeAll(async () => {
  port = await getFreePort();
  // detached: `npm run` starts a shell and tsx; signal the whole group on stop.
  proc = spawn('npm', ['run', '-s', 'mock'], {
    cwd: root,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  proc.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await waitFor(() => output.includes('Stop with Ctrl+C'), { timeoutMs: 45_000, what: 'npm run mock usage' });
});
afterAll(async () => {
  if (proc?.exitCode === null && proc.signalCode === null && proc.pid) {
    const exited = new Promise((r) => proc.once('exit', r));
    process.kill(-proc.pid, 'SIGTERM');
    await exited;
  }
});

describe('npm run mock', () => {
  it('prints the base URL, a sample key and every scenario of the table', () => {
    expect(output).toContain(`Base URL:   http://127.0.0.1:${port}`);
    expect(output).toContain('Authorization: Bearer mock-key');
    for (const s of listScenarios()) expect(output).toContain(`Prefer: ${s.prefer}`);
  });

  it('serves the spec on PORT: 200 by default, 404 with Prefer: code=404', async () => {
    const url = `http://127.0.0.1:${port}/v1/sessions/sess_paused_1/resume`;
    const ok = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer mock-key' } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ success: true });
    const missing = await fetch(url, {
      method: 'POST',
      headers: { authorization: 'Bearer mock-key', prefer: 'code=404' },
    });
    expect(missing.status).toBe(404);
  });
});

describe('start-mock.ts (what `npm run mock` runs)', () => {
  it('forwards SIGTERM to Prism: signalling the launcher alone releases the port', async () => {
    const own = await getFreePort();
    const launcher = spawn(join(root, 'node_modules/.bin/tsx'), ['tools/mock/start-mock.ts'], {
      cwd: root,
      env: { ...process.env, PORT: String(own) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let printed = '';
    launcher.stdout.on('data', (d: Buffer) => (printed += d.toString()));
    await waitFor(() => printed.includes('Stop with Ctrl+C'), { timeoutMs: 45_000, what: 'the launcher' });
    expect((await fetch(`http://127.0.0.1:${own}/v1/sessions/x/resume`, { method: 'POST' })).status).toBe(401);
    const exited = new Promise((r) => launcher.once('exit', r));
    launcher.kill('SIGTERM');
    await exited;
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${own}/`).then(
          () => false,
          () => true,
        ),
      { what: 'the mock port to close' },
    );
  });
});

describe('npm run mock on a busy port', () => {
  it('says in one line that the port is in use and which variable to set, and exits non-zero', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const busy = (taken.address() as AddressInfo).port;
    try {
      const launcher = spawn(join(root, 'node_modules/.bin/tsx'), ['tools/mock/start-mock.ts'], {
        cwd: root,
        env: { ...process.env, PORT: String(busy) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let printed = '';
      launcher.stdout.on('data', (d: Buffer) => (printed += d.toString()));
      launcher.stderr.on('data', (d: Buffer) => (printed += d.toString()));
      const code = await new Promise<number | null>((resolve) => launcher.once('exit', resolve));
      expect(code).not.toBe(0);
      expect(printed.trim()).toBe(`127.0.0.1:${busy} is already in use: set PORT to a free port (PORT=${busy + 1} npm run mock).`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
