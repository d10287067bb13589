/**
 * examples/hono-receiver/README.md as a new user follows it: a fresh project with only the packed
 * `session-resume-api` installed and the example's server.ts copied in, then the README's
 * ```sh project block run as written by bash (its port 3001 swapped for a free one): the block
 * installs what the example imports, the server listens, and a delivery is answered 200 and
 * handled once.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { getFreePort } from '../helpers/free-port.js';
import { installProject, npmEnv, root, sharedPackages } from '../helpers/package-tarball.js';
import { waitFor } from '../helpers/wait-for.js';

const README = readFileSync(join(root, 'examples/hono-receiver/README.md'), 'utf8');
let work: string | undefined;
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

it("the README's commands, run in a fresh project, install what the example needs and serve it", { timeout: 300_000 }, async () => {
  const block = /^```sh project\n([\s\S]*?)^```$/m.exec(README)?.[1];
  expect(block, 'the README has a ```sh project block').toBeDefined();
  const commands = block!.split('\n').filter((line) => line.trim() && !line.startsWith('#'));
  const port = await getFreePort();
  // The block as written, its port swapped for a free one; before its last command (the server,
  // which runs until stopped) the token the block made is kept in a file for the test to send to.
  const script = [...commands.slice(0, -1), 'printf %s "$TOKEN" > .token', commands.at(-1)!].join('\n').replaceAll('3001', String(port));

  const { client } = await sharedPackages();
  work = mkdtempSync(join(tmpdir(), 'sra-hono-example-'));
  const dir = await installProject(work, 'my-app', [client.file], { 'server.ts': readFileSync(join(root, 'examples/hono-receiver/server.ts'), 'utf8') });

  const child = spawn('bash', ['-e', '-c', script], { cwd: dir, env: { ...process.env, ...npmEnv }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitFor(() => output.includes('"msg":"listening"') || child.exitCode !== null, { what: 'the example to listen', timeoutMs: 240_000 });
    expect(output).toContain(`{"msg":"listening","port":${port}}`);
    const token = readFileSync(join(dir, '.token'), 'utf8');
    const body = JSON.stringify({ event: 'session.resumed', session: { id: 'sess_hono_readme' }, timestamp: new Date().toISOString() });
    const answer = await fetch(`http://127.0.0.1:${port}/webhooks/session-events/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(answer.status).toBe(200);
    await waitFor(() => output.includes('"sessionId":"sess_hono_readme"'), { what: 'the example to handle the event' });
  } finally {
    if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
});
