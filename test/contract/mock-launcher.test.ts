/**
 * `npm run mock` as a user runs it: starts Prism on PORT, prints base URL, sample key and
 * the scenario table, answers the examples, and stops on SIGTERM (issue #6).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listScenarios } from '../../spec/scenarios.js';
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

  it('stops Prism on SIGTERM (the port is released)', async () => {
    const exited = new Promise((r) => proc.once('exit', r));
    process.kill(-proc.pid!, 'SIGTERM');
    await exited;
    await waitFor(
      async () => {
        try {
          await fetch(`http://127.0.0.1:${port}/`);
          return false;
        } catch {
          return true;
        }
      },
      { what: 'the mock port to close' },
    );
  });
});
