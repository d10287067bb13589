/**
 * What the runtime suites share: the packed package installed alone in a fresh project, the
 * receiver programs of docs/receiver.md as written, a web bundle built the way each platform's
 * tooling builds one, deliveries signed by Svix's own library (`svix`, an implementation of
 * Standard Webhooks other than the `standardwebhooks` package the kit verifies with), and the
 * cases every runtime must pass.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { Webhook } from 'svix';
import { expect } from 'vitest';
import { installProject, root, sharedPackages } from '../../helpers/package-tarball.js';
import { waitFor } from '../../helpers/wait-for.js';

/** A fresh project with only the packed `session-resume-api` installed (no optional peer). */
export interface ReceiverProject {
  dir: string;
  /** Removes the project. */
  remove(): void;
}

/** Installs the packed client tarball (built and packed once per test run) into a fresh project. */
export async function receiverProject(name: string, files: Record<string, string> = {}): Promise<ReceiverProject> {
  const { client } = await sharedPackages();
  const work = mkdtempSync(join(tmpdir(), `sra-${name}-`));
  const dir = await installProject(work, name, [client.file], files);
  return { dir, remove: () => rmSync(work, { recursive: true, force: true }) };
}

/** The file block of docs/receiver.md titled `name` (```ts name), exactly as the page shows it. */
export function docFile(name: string): string {
  const page = readFileSync(join(root, 'docs/receiver.md'), 'utf8');
  const block = new RegExp(`^\`\`\`(?:ts|js|toml) ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(page);
  if (!block) throw new Error(`docs/receiver.md has no block titled ${name}`);
  return block[1]!;
}

/**
 * How each platform's tooling bundles a program: esbuild for a `neutral` or `browser` platform,
 * and wrangler's own settings for Workers (its conditions `workerd`, `worker`, `browser`, the
 * browser platform, `cloudflare:*` left to workerd). Nothing else is external.
 */
export const PLATFORMS = {
  neutral: { platform: 'neutral', mainFields: ['module', 'main'] },
  browser: { platform: 'browser' },
  workerd: {
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    external: ['cloudflare:*'],
    define: { 'navigator.userAgent': '"Cloudflare-Workers"' },
  },
  /** Vercel's Edge build: the `edge-light` condition, one script (edge-runtime runs scripts, not modules). */
  edge: { platform: 'browser', conditions: ['edge-light', 'worker', 'browser'], format: 'iife', globalName: 'edgeFunction' },
} satisfies Record<string, BuildOptions>;

/** Bundles `entry` of a project into one ES module for `platform`; throws esbuild's errors. */
export async function bundle(dir: string, entry: string, platform: keyof typeof PLATFORMS): Promise<string> {
  const result = await build({
    absWorkingDir: dir,
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    logLevel: 'silent',
    ...PLATFORMS[platform],
  });
  return result.outputFiles[0]!.text;
}

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The headers of a delivery signed the way a Svix sender signs it: `svix`'s `Webhook.sign`
 * (`v1,` + HMAC-SHA256 of `id.timestamp.body` with the bytes of the `whsec_` secret), sent under
 * the Standard Webhooks header names.
 */
export function signed(secret: string, id: string, body: string): Record<string, string> {
  const now = new Date();
  const signature = new Webhook(secret).sign(id, now, body);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

/** What the documented receiver programs read: a URL token and two secrets (rotation). */
export interface ReceiverSettings {
  token: string;
  secrets: [string, string];
}

export function receiverSettings(): ReceiverSettings {
  return { token: randomBytes(18).toString('base64url'), secrets: [newSecret(), newSecret()] };
}

/** The variables the documented programs read, for these settings. */
export function receiverEnv(s: ReceiverSettings): Record<string, string> {
  return { WEBHOOK_URL_TOKEN: s.token, WEBHOOK_SECRET: s.secrets.join(',') };
}

/** A receiver under test: where to send, and how many times `onEvent` ran for a session (its output lines). */
export interface RuntimeTarget {
  post(path: string, init: RequestInit): Promise<Response>;
  /** Lines the program printed so far. */
  output(): string;
}

/** How many `session event <name> <session id>` lines the documented `onEvent` printed for `sessionId`. */
export function handledCount(target: RuntimeTarget, sessionId: string): number {
  return target
    .output()
    .split('\n')
    .filter((line) => line.includes(`session event session.resumed ${sessionId}`)).length;
}

const eventBody = (sessionId: string) => JSON.stringify({ event: 'session.resumed', session: { id: sessionId }, timestamp: new Date().toISOString() });

/**
 * The cases every runtime passes: a signed delivery handled once, its duplicate answered and not
 * handled again, a delivery signed with the second secret accepted and handled, and 401, 400,
 * 404, 405, 413 as documented.
 */
export async function expectReceiverCases(target: RuntimeTarget, s: ReceiverSettings, label: string): Promise<void> {
  const path = `/webhooks/session-events/${s.token}`;
  const first = `sess_${label}_${randomBytes(4).toString('hex')}`;
  const body = eventBody(first);
  const headers = signed(s.secrets[0], `msg_${first}`, body);

  const answer = await target.post(path, { method: 'POST', headers, body });
  expect(answer.status).toBe(200);
  expect(await answer.json()).toMatchObject({ received: true, duplicate: false });
  await waitFor(() => handledCount(target, first) === 1, { what: `onEvent for ${first}`, timeoutMs: 10_000 });

  const again = await target.post(path, { method: 'POST', headers, body });
  expect(await again.json()).toMatchObject({ received: true, duplicate: true });

  const second = `sess_${label}_b_${randomBytes(4).toString('hex')}`;
  const rotated = eventBody(second);
  const byNewSecret = await target.post(path, { method: 'POST', headers: signed(s.secrets[1], `msg_${second}`, rotated), body: rotated });
  expect(byNewSecret.status).toBe(200);
  await waitFor(() => handledCount(target, second) === 1, { what: `onEvent for ${second}`, timeoutMs: 10_000 });

  const stranger = await target.post(path, { method: 'POST', headers: signed(newSecret(), 'msg_stranger', rotated), body: rotated });
  expect(stranger.status).toBe(401);
  const notJson = '{"event":';
  expect((await target.post(path, { method: 'POST', headers: signed(s.secrets[0], 'msg_bad', notJson), body: notJson })).status).toBe(400);
  expect((await target.post('/webhooks/session-events/wrong-token-0123456789abc', { method: 'POST', headers, body })).status).toBe(404);
  expect((await target.post(path, { method: 'GET' })).status).toBe(405);
  const huge = `{"pad":"${'x'.repeat(1024 * 1024)}"}`;
  expect((await target.post(path, { method: 'POST', headers: signed(s.secrets[0], 'msg_huge', huge), body: huge })).status).toBe(413);

  // The duplicate was never handled: still one run each.
  expect(handledCount(target, first)).toBe(1);
  expect(handledCount(target, second)).toBe(1);
}

/** Writes `files` into `dir`. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

/** A runtime's server process: its output so far, its origin once it listens, and its stop. */
export interface ServerProcess extends RuntimeTarget {
  origin: string;
  stop(): Promise<void>;
}

/**
 * Starts `command` in `dir` with `env` and waits until its output shows `listening` (whose first
 * group is the port); stops it by its pid, or, with `processGroup`, stops its whole process group
 * (for a launcher that runs the server in a child of its own, as wrangler's does).
 */
export async function startServer(
  command: string,
  args: string[],
  dir: string,
  env: Record<string, string>,
  listening: RegExp,
  { processGroup = false } = {},
): Promise<ServerProcess> {
  const child = spawn(command, args, { cwd: dir, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: processGroup });
  const kill = (signal: NodeJS.Signals) => (processGroup && child.pid ? process.kill(-child.pid, signal) : child.kill(signal));
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitFor(() => listening.test(output) || child.exitCode !== null, { what: `${command} to listen`, timeoutMs: 60_000 });
  } catch (error) {
    kill('SIGKILL');
    throw new Error(`${command} did not start: ${output}`, { cause: error });
  }
  const port = listening.exec(output)?.[1];
  if (!port) throw new Error(`${command} exited before listening: ${output}`);
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    output: () => output,
    post: (path, init) => fetch(`${origin}${path}`, init),
    async stop() {
      if (child.exitCode === null) kill('SIGTERM');
      await exited;
      // The launcher's children (wrangler's own process, workerd) leave after it: wait for the group.
      if (processGroup && child.pid) await waitFor(() => !groupAlive(child.pid!), { what: `the processes of ${command} to exit`, timeoutMs: 30_000 });
    },
  };
}

/** Whether any process of the group `pid` leads is still running. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
