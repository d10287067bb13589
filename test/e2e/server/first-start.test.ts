/**
 * What a new user meets on the first starts: both key banners on stderr (stdout carries the
 * JSON log alone), the server and the sandbox on different default ports, an address in use
 * naming the variable that moves it, and settings left blank refused at start by name.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServerExpectingExit } from '../../helpers/sandbox-process.js';
import { getFreePort } from '../../helpers/free-port.js';
import { waitFor } from '../../helpers/wait-for.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Starts `server/main.ts` with `args`, waits until stderr matches `ready`, stops it; resolves with both streams. */
async function firstLines(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  try {
    await waitFor(() => ready.test(stderr) && stdout.includes('"msg":"listening"'), { what: `${args.join(' ')} banner`, timeoutMs: 30_000 });
  } finally {
    proc.kill('SIGTERM');
    await exited;
  }
  return { stdout, stderr };
}

describe('key banners', () => {
  it('npm start and npm run sandbox both print theirs on stderr, leaving stdout to the JSON log', async () => {
    const server = await firstLines([], { PORT: String(await getFreePort()) }, /Development API key/);
    const sandbox = await firstLines(['--sandbox'], { SANDBOX_PORT: String(await getFreePort()) }, /Key: +sandbox_/);
    for (const { stdout } of [server, sandbox]) {
      for (const line of stdout.split('\n').filter(Boolean)) expect(line, 'stdout holds JSON log lines only').toMatch(/^\{.*\}$/);
    }
    expect(sandbox.stderr).toContain('SANDBOX MODE');
  }, 60_000);
});

describe('an address in use', () => {
  let holder: Server;
  let port: number;
  beforeAll(async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  it('names PORT for the server and SANDBOX_PORT for the sandbox', async () => {
    const server = await runServerExpectingExit([], { PORT: String(port) });
    expect(server.code).toBe(1);
    expect(server.output).toContain(`session-resume-api cannot start: 127.0.0.1:${port} is already in use`);
    expect(server.output).toContain('set PORT to a free port, or to 0 to pick one');
    const sandbox = await runServerExpectingExit(['--sandbox'], { SANDBOX_PORT: String(port) });
    expect(sandbox.code).toBe(1);
    expect(sandbox.output).toContain('set SANDBOX_PORT to a free port');
  }, 60_000);
});

describe('settings left blank or pointing nowhere', () => {
  it('are refused at start, naming the variable: API_KEYS empty, REDIS_URL without a host', async () => {
    const keys = await runServerExpectingExit([], { API_KEYS: '' });
    expect(keys.code).toBe(1);
    expect(keys.output).toContain('session-resume-api cannot start: API_KEYS is set but blank');
    expect(keys.output).not.toContain('Development API key');
    const redis = await runServerExpectingExit([], { REDIS_URL: 'redis://' });
    expect(redis.code).toBe(1);
    expect(redis.output).toContain('session-resume-api cannot start: REDIS_URL=redis:// has no host');
    expect(redis.output).not.toContain('sessions seeded');
  }, 60_000);
});
