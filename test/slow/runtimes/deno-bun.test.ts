/**
 * The packed package in Deno and Bun (both installed from npm, pinned): the programs of
 * docs/receiver.md as written, in a project holding nothing but the package, receiving signed
 * deliveries: listening on 127.0.0.1 only, handled once, duplicates not handled, rotation, and
 * every refusal.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docFile, expectReceiverCases, receiverEnv, receiverProject, receiverSettings, startServer, type ReceiverProject } from './runtime-kit.js';

const require = createRequire(import.meta.url);
/** The binaries the npm packages ship (resolved through their package.json, as `npx` would run them). */
const DENO = join(dirname(require.resolve('deno/package.json')), 'deno');
const BUN = join(dirname(require.resolve('bun/package.json')), 'bin/bun.exe');

describe.each([
  { runtime: 'Deno', file: 'main.ts', command: DENO, args: ['run', '--allow-net', '--allow-env', 'main.ts'] },
  { runtime: 'Bun', file: 'server.ts', command: BUN, args: ['run', 'server.ts'] },
])('$runtime', ({ runtime, file, command, args }) => {
  let project: ReceiverProject;
  const settings = receiverSettings();

  beforeAll(async () => {
    project = await receiverProject(runtime.toLowerCase(), { [file]: docFile(file) });
  }, 240_000);
  afterAll(() => project?.remove());

  it('receives signed deliveries: handled once, duplicate not handled, second secret, 401/400/404/405/413', { timeout: 120_000 }, async () => {
    const server = await startServer(command, args, project.dir, { ...receiverEnv(settings), PORT: '0' }, /Listening on https?:\/\/[^\s]*?:(\d+)/i);
    try {
      // Loopback only, as the page's program asks: TLS and the public address are a proxy's.
      expect(server.output()).toMatch(/Listening on https?:\/\/127\.0\.0\.1:\d+/i);
      await expectReceiverCases(server, settings, runtime.toLowerCase());
    } finally {
      await server.stop();
    }
  });
});
