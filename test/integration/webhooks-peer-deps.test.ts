/**
 * In a Node process where bullmq and ioredis cannot be resolved (a module-resolution hook
 * refuses them, as in a project that did not install them): `session-resume-api/webhooks`
 * loads and receives with the memory store, and importing the Redis subpath fails with a
 * message naming `npm install bullmq ioredis`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'no-redis-libs-'));
  await writeFile(
    join(dir, 'hooks.mjs'),
    `export async function resolve(specifier, context, next) {
  if (/^(bullmq|ioredis)(\\/|$)/.test(specifier)) {
    throw Object.assign(new Error("Cannot find package '" + specifier + "'"), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}
`,
  );
  await writeFile(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs `code` (an ES module body) in a Node process without bullmq and ioredis; resolves its stdout and exit code. */
async function withoutRedisLibraries(code: string): Promise<{ stdout: string; code: number }> {
  const script = join(dir, `main-${Math.random().toString(36).slice(2)}.mts`);
  await writeFile(script, code);
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--import', pathToFileURL(join(dir, 'register.mjs')).href, script], {
      cwd: root,
      timeout: 60_000,
    });
    return { stdout, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; code?: number };
    return { stdout: failed.stdout ?? '', code: failed.code ?? -1 };
  }
}

describe('without the optional peer dependencies bullmq and ioredis', () => {
  it('session-resume-api/webhooks loads and receives on the memory store', { timeout: 60_000 }, async () => {
    const webhooks = pathToFileURL(join(root, 'client/webhooks/index.ts')).href;
    const { stdout, code } = await withoutRedisLibraries(`
const { createWebhookReceiver, createMemoryEventStore } = await import(${JSON.stringify(webhooks)});
const receiver = createWebhookReceiver({ store: createMemoryEventStore(), onEvent: () => {} });
const answer = await receiver.receive(JSON.stringify({ event: 'session.resumed', session: { id: 's' }, timestamp: 't' }));
await receiver.close();
console.log('status', answer.status);
try { await import('ioredis'); console.log('ioredis loadable'); } catch { console.log('ioredis refused'); }
`);
    expect(code).toBe(0);
    expect(stdout).toContain('status 200');
    // The hook works: the same process cannot load ioredis.
    expect(stdout).toContain('ioredis refused');
  });

  it('importing session-resume-api/webhooks/redis fails with the install command', { timeout: 60_000 }, async () => {
    const redis = pathToFileURL(join(root, 'client/webhooks/redis/index.ts')).href;
    const { stdout, code } = await withoutRedisLibraries(`
try {
  await import(${JSON.stringify(redis)});
  console.log('loaded');
} catch (error) {
  console.log(error.name + ': ' + error.message);
  process.exitCode = 3;
}
`);
    expect(code).toBe(3);
    expect(stdout).toMatch(/RedisLibrariesMissingError: .*`npm install bullmq ioredis`/);
  });
});
