/**
 * docs/tracing.md's `tracing.mjs` and its command, as written: the file saved in a project that
 * has the server and the three OpenTelemetry packages installed (this repository's), the
 * command run there by bash, and a resume with a `traceparent` prints the resume's span in
 * that trace.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { getFreePort } from '../helpers/free-port.js';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const page = readFileSync(join(root, 'docs/tracing.md'), 'utf8');
const KEY = 'tracing-doc-key-0123456789abcdef';

/** The page's fenced block whose info string is `tag`. */
function block(tag: string, body?: RegExp): string {
  const blocks = [...page.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === tag && (!body || body.test(m[2] ?? '')));
  expect(blocks, `one \`\`\`${tag} block`).toHaveLength(1);
  return blocks[0]![2]!;
}

let project: string | undefined;
let server: ChildProcess | undefined;

afterAll(() => {
  // The command runs npx, which runs node: the group goes together.
  if (server?.pid && server.exitCode === null) process.kill(-server.pid, 'SIGKILL');
  if (project) rmSync(project, { recursive: true, force: true });
});

it("the tracing.mjs of docs/tracing.md, started as the page says, records the resume span of the request's trace", async () => {
  project = mkdtempSync(join(tmpdir(), 'tracing-doc-'));
  writeFileSync(join(project, 'package.json'), '{ "name": "tracing-doc", "private": true, "type": "module" }\n');
  symlinkSync(join(root, 'node_modules'), join(project, 'node_modules'), 'dir');
  writeFileSync(join(project, 'tracing.mjs'), block('js tracing.mjs'));
  const command = block('sh', /--import \.\/tracing\.mjs/).trim();

  const port = await getFreePort();
  let output = '';
  server = spawn('bash', ['-c', command], {
    cwd: project,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), API_KEYS: KEY, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  server.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  server.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200, { timeoutMs: 30_000, what: 'the server' }).catch(
    (err: Error) => {
      throw new Error(`${err.message}\n${output}`);
    },
  );

  const traceId = randomBytes(16).toString('hex');
  const res = await fetch(`${url}/v1/sessions/sess_paused_1/resume`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
  });
  expect(res.status).toBe(200);
  await waitFor(() => output.includes("name: 'POST /v1/sessions/{session_id}/resume'") && output.includes(traceId), {
    what: 'the resume span',
    timeoutMs: 10_000,
  }).catch((err: Error) => {
    throw new Error(`${err.message}\n${output}`);
  });
}, 60_000);
