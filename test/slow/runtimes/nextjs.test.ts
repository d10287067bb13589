/**
 * The packed package in Next.js: next, react and react-dom installed from npm at the versions
 * this repository pins (next in the slow tier's runtimes, test/slow/runtimes/package.json, the
 * others in its devDependencies, so that npm's cache has them after the installs), with the
 * two route files of docs/receiver.md as written, in one fresh app built once by `next build`
 * and served by `next start -p 0`. The Node.js runtime route runs with the memory store, then
 * with the Redis store (REDIS_URL, a private redis-server); the Edge runtime route with the
 * memory store. `onEvent` is observed through the lines the documented handler prints to
 * `next start`'s output. `next start` never ends a request's work at its answer, so these cases
 * show that the routes run with `{ waitUntil: after }` in both runtimes, not that `after` keeps
 * the processing alive: they pass without it too.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installProject, root, run, sharedPackages } from '../../helpers/package-tarball.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import {
  docFile,
  expectReceiverCases,
  receiverEnv,
  receiverSettings,
  startServer,
  type ReceiverProject,
  type RuntimeTarget,
  type ServerProcess,
} from './runtime-kit.js';

/** The route files of the page, where the page puts them. */
const NODE_ROUTE = 'app/api/webhooks/[token]/route.ts';
const EDGE_ROUTE = 'app/api/webhooks/edge/[token]/route.ts';

const pinned = (file: string, name: string): string => {
  const version = (JSON.parse(readFileSync(join(root, file), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies[name];
  if (!version) throw new Error(`${file} pins no ${name}`);
  return `${name}@${version}`;
};

/**
 * What a Next.js app with the receiver installs: Next.js and React, the Redis store's peers, and
 * TypeScript with the types `next build` checks a TypeScript app with (it installs them itself
 * when they are missing).
 */
const PACKAGES = [
  pinned('test/slow/runtimes/package.json', 'next'),
  ...['react', 'react-dom', 'typescript', '@types/node', '@types/react'].map((name) => pinned('package.json', name)),
  ...['bullmq', 'ioredis'].map((name) => pinned('client/package.json', name)),
];

/** Next.js collects no telemetry in a test. */
const NEXT_ENV = { NEXT_TELEMETRY_DISABLED: '1' };

/** `next start` on a free port (`-p 0`: it prints the port it got); `env` as the app's variables. */
function nextStart(dir: string, env: Record<string, string>): Promise<ServerProcess> {
  return startServer(join(dir, 'node_modules/.bin/next'), ['start', '-p', '0'], dir, { ...NEXT_ENV, ...env }, /Local:\s+https?:\/\/[^\s]*?:(\d+)/);
}

/** The receiver cases' path (`/webhooks/session-events/<token>`) sent to the route under `base`. */
function routeTarget(server: ServerProcess, base: string): RuntimeTarget {
  return { output: server.output, post: (path, init) => server.post(path.replace('/webhooks/session-events/', base), init) };
}

/** What the page says of other methods than POST: Next.js answers them itself (405 without a body, OPTIONS 204 with Allow). */
async function expectNextMethodAnswers(server: ServerProcess, path: string): Promise<void> {
  const get = await server.post(path, { method: 'GET' });
  expect(get.status).toBe(405);
  expect(await get.text()).toBe('');
  const options = await server.post(path, { method: 'OPTIONS' });
  expect(options.status).toBe(204);
  expect(options.headers.get('allow')).toContain('POST');
}

describe('Next.js: the route handlers of docs/receiver.md, built and started', () => {
  let project: ReceiverProject;
  let redis: RedisServer;
  const settings = receiverSettings();

  beforeAll(async () => {
    const { client } = await sharedPackages();
    const work = mkdtempSync(join(tmpdir(), 'sra-nextjs-'));
    project = { dir: await installProject(work, 'nextjs', [client.file, ...PACKAGES]), remove: () => rmSync(work, { recursive: true, force: true }) };
    for (const file of [NODE_ROUTE, EDGE_ROUTE]) {
      mkdirSync(dirname(join(project.dir, file)), { recursive: true });
      writeFileSync(join(project.dir, file), docFile(file));
    }
    // Built once for every case; the build knows none of the receiver's variables.
    await run(join(project.dir, 'node_modules/.bin/next'), ['build'], { cwd: project.dir, env: { ...process.env, ...NEXT_ENV }, maxBuffer: 16 * 1024 * 1024 });
    redis = await startRedisServer();
  }, 600_000);

  afterAll(async () => {
    await redis?.stop();
    project?.remove();
  });

  it(
    'the Node.js runtime route without REDIS_URL (memory store) answers every documented case and runs onEvent once per event',
    { timeout: 120_000 },
    async () => {
      const server = await nextStart(project.dir, receiverEnv(settings));
      try {
        await expectReceiverCases(routeTarget(server, '/api/webhooks/'), settings, 'next_node_memory');
        await expectNextMethodAnswers(server, `/api/webhooks/${settings.token}`);
      } finally {
        await server.stop();
      }
    },
  );

  it(
    'the Edge runtime route (memory store), built as an Edge function, answers every documented case and runs onEvent once per event',
    { timeout: 120_000 },
    async () => {
      // The Edge route, and only it, is an Edge function of the build: these cases run in Next.js's Edge runtime.
      const manifest = JSON.parse(readFileSync(join(project.dir, '.next/server/middleware-manifest.json'), 'utf8')) as { functions: Record<string, unknown> };
      expect(Object.keys(manifest.functions)).toEqual(['/api/webhooks/edge/[token]/route']);
      const server = await nextStart(project.dir, receiverEnv(settings));
      try {
        await expectReceiverCases(routeTarget(server, '/api/webhooks/edge/'), settings, 'next_edge');
        await expectNextMethodAnswers(server, `/api/webhooks/edge/${settings.token}`);
      } finally {
        await server.stop();
      }
    },
  );

  it('the Node.js runtime route with REDIS_URL (Redis store) answers every documented case and runs onEvent once per event', { timeout: 120_000 }, async () => {
    const server = await nextStart(project.dir, { ...receiverEnv(settings), REDIS_URL: redis.url });
    try {
      await expectReceiverCases(routeTarget(server, '/api/webhooks/'), settings, 'next_node_redis');
    } finally {
      await server.stop();
    }
  });
});
