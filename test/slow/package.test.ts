/**
 * The three published packages as their users get them: built and packed once per run
 * (`sharedPackages()`), each tarball installed alone into a fresh project, and used there under
 * Node 20 (this process) and Node 24 (the `node@24` npm package, downloaded once into
 * .tmp/node24 by test/helpers/node24.ts). A slow suite: it runs with TEST_FULL=1 (CI, `npm run test:full`).
 * - session-resume-api (the library): at most 10 packages and 5 MB in node_modules, none of the
 *   command's; the browser bundle of ./client at most 10 kB gzipped; the browser entries load no
 *   Node built-in; one OptionsError class whichever subpath exports it; types under
 *   moduleResolution node16, nodenext and bundler; ./webhooks works without any Redis library;
 *   no command.
 * - session-resume-api-cli: the `session-resume-api` command, installed alone, resumes a session.
 * - session-resume-api-server: createApp as a library, and the bin serving /docs.
 * The measured figures are printed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getFreePort } from '../helpers/free-port.js';
import { node24, node24Path } from '../helpers/node24.js';
import { installProject, root, run, sharedPackages, type Tarball } from '../helpers/package-tarball.js';
import { startPrism, type PrismServer } from '../helpers/prism.js';
import { waitFor } from '../helpers/wait-for.js';

const tsc = join(root, 'node_modules/typescript/bin/tsc');
/** The Node versions each package runs under: this process's, and Node 24. */
const RUNTIMES: [string, () => string, RegExp][] = [
  ['Node 20', () => process.execPath, /^v20\./],
  ['Node 24', () => node24Path, /^v24\./],
];
const VERSION = '0.2.0';

const clientConsumer = `
import { createSessionsClient, SessionsClientError, type ResumeOutcome } from 'session-resume-api/client';
import { createWebhookReceiver, createMemoryEventStore, OptionsError as WebhooksOptionsError } from 'session-resume-api/webhooks';
import { OptionsError } from 'session-resume-api/client';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const baseUrl = process.argv[2] ?? '';
const client = createSessionsClient({ baseUrl, apiKey: 'consumer-key', maxRetries: 0 });
const kinds: ResumeOutcome['kind'][] = [];
const resumed = await client.resume('sess_paused_1');
kinds.push(resumed.kind);
kinds.push((await client.resume('sess_running_1', { headers: { Prefer: 'code=409, example=notPaused' } })).kind);
kinds.push((await client.resume('sess_unknown', { headers: { Prefer: 'code=404' } })).kind);
// @ts-expect-error the result is only there once the kind is narrowed (types are loaded)
void resumed.result;
const message = resumed.kind === 'resumed' ? resumed.result.message : '';
const spec = readFileSync(fileURLToPath(import.meta.resolve('session-resume-api/spec')), 'utf8');
const handled: string[] = [];
const receiver = createWebhookReceiver({ store: createMemoryEventStore(), onEvent: (event) => void handled.push(event.event ?? '') });
const body = JSON.stringify({ event: 'session.resumed', session: { id: 's1' }, timestamp: '2026-01-01T00:00:00Z' });
const answers = [(await receiver.receive(body)).status, (await receiver.receive(body)).status];
await new Promise((resolve) => setTimeout(resolve, 50));
await receiver.close();
// The class a caller imports from ./client is the one thrown under ./webhooks.
const thrown = (() => {
  try {
    createMemoryEventStore({ concurrency: 0 });
  } catch (error) {
    return error;
  }
})();
console.log(JSON.stringify({
  optionsError: {
    thrownIsClientClass: thrown instanceof OptionsError,
    sameClass: OptionsError === WebhooksOptionsError,
  },
  node: process.version,
  kinds,
  message,
  errorClass: typeof SessionsClientError,
  specIsYaml: spec.startsWith('openapi: 3.1'),
  answers,
  handled,
}));
`;

const serverConsumer = `
import { createApp, createMemorySessionStore } from 'session-resume-api-server';

const store = createMemorySessionStore();
await store.seed([{ id: 'p1', status: 'paused' }]);
const app = await createApp({ store, apiKeys: ['k1'] });
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const { port } = server.address() as { port: number };
const resume = () => fetch('http://127.0.0.1:' + port + '/v1/sessions/p1/resume', { method: 'POST', headers: { authorization: 'Bearer k1' } });
const statuses = [(await resume()).status, (await resume()).status];
server.close();
console.log(JSON.stringify({ node: process.version, statuses }));
`;

const tsconfig = (moduleResolution: string) => ({
  compilerOptions: {
    target: 'ES2022',
    module: moduleResolution === 'bundler' ? 'ESNext' : moduleResolution === 'node16' ? 'Node16' : 'NodeNext',
    moduleResolution,
    strict: true,
    outDir: 'out',
    skipLibCheck: false,
    types: ['node'],
    typeRoots: [join(root, 'node_modules/@types')],
    lib: ['ES2023', 'DOM'],
  },
  files: ['consumer.ts'],
});

let prism: PrismServer;
let work: string;
const tarballs: Record<'client' | 'server' | 'cli', Tarball> = {} as never;
let clientDir: string;
let serverDir: string;
let cliDir: string;

/** Packages (top level and scoped) and bytes under a node_modules folder. */
function measure(nodeModules: string): { packages: string[]; bytes: number } {
  const packages: string[] = [];
  for (const name of readdirSync(nodeModules)) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) packages.push(...readdirSync(join(nodeModules, name)).map((n) => `${name}/${n}`));
    else packages.push(name);
  }
  const size = (path: string): number => {
    const stat = statSync(path);
    return stat.isDirectory() ? readdirSync(path).reduce((sum, n) => sum + size(join(path, n)), 0) : stat.size;
  };
  return { packages, bytes: size(nodeModules) };
}

function consumerProject(name: string, tarball: string, source: string): Promise<string> {
  return installProject(work, name, [tarball], { 'consumer.ts': source, 'tsconfig.json': JSON.stringify(tsconfig('nodenext')) });
}

/** Compiles a consumer project; a type error fails with tsc's own output. */
async function compile(dir: string): Promise<void> {
  await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir }).catch((error: { stdout?: string }) => {
    throw new Error(`tsc in ${dir} failed:\n${error.stdout ?? String(error)}`);
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sra-package-'));
  const packages = await sharedPackages();
  tarballs.client = packages.client;
  tarballs.server = packages.server;
  tarballs.cli = packages.cli;
  [prism, clientDir, serverDir, cliDir] = await Promise.all([
    startPrism(),
    consumerProject('consumer', tarballs.client.file, clientConsumer),
    consumerProject('operator', tarballs.server.file, serverConsumer),
    installProject(work, 'tools', [tarballs.cli.file]),
    node24(),
  ]);
  await Promise.all([compile(clientDir), compile(serverDir)]);
}, 600_000);

afterAll(async () => {
  await prism?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('session-resume-api (consumer package)', () => {
  it('ships the bundles, types, the spec and the README; no command, sources, tests or dev tools', () => {
    const files = tarballs.client.files;
    console.log(`session-resume-api tarball: ${statSync(tarballs.client.file).size} B, ${files.length} files`);
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/index.js',
        'dist/webhooks.js',
        'dist/openapi.yaml',
        'dist/types/client/index.d.ts',
        'dist/types/generated/api.d.ts',
      ]),
    );
    expect(files.filter((f) => (f.endsWith('.ts') && !f.endsWith('.d.ts')) || /(^|\/)(tools|mock|diff|test|server|cli|bin)\/|build-docs/.test(f))).toEqual([]);
  });

  it("installs alone in at most 10 packages and 5 MB, none of them the command's", () => {
    const { packages, bytes } = measure(join(clientDir, 'node_modules'));
    console.log(`session-resume-api installs ${packages.length} packages, ${(bytes / 1e6).toFixed(2)} MB: ${packages.join(', ')}`);
    expect(packages.length).toBeLessThanOrEqual(10);
    expect(bytes).toBeLessThanOrEqual(5e6);
    expect(packages).not.toEqual(expect.arrayContaining(['ajv']));
    expect(packages.some((p) => ['bullmq', 'ioredis', 'express', 'yaml', 'commander'].includes(p))).toBe(false);
    expect(existsSync(join(clientDir, 'node_modules/.bin/session-resume-api'))).toBe(false);
  });

  it('bundles ./client for browsers in at most 10 kB gzipped', async () => {
    const result = await build({
      stdin: { contents: "export { createSessionsClient } from 'session-resume-api/client';", resolveDir: clientDir },
      bundle: true,
      minify: true,
      platform: 'browser',
      format: 'esm',
      write: false,
    });
    const gzipped = gzipSync(result.outputFiles[0]!.contents).length;
    console.log(`./client browser bundle: ${result.outputFiles[0]!.contents.length} B minified, ${gzipped} B gzipped`);
    expect(gzipped).toBeLessThanOrEqual(10_000);
  });

  // tsc takes 5-30 s here on a loaded box: a longer limit than the default 30 s.
  it.each(['node16', 'nodenext', 'bundler'])('type-checks a consumer under moduleResolution %s', { timeout: 90_000 }, async (resolution) => {
    writeFileSync(
      join(clientDir, `tsconfig.${resolution}.json`),
      JSON.stringify({ ...tsconfig(resolution), compilerOptions: { ...tsconfig(resolution).compilerOptions, noEmit: true } }),
    );
    const result = await run(process.execPath, [tsc, '-p', `tsconfig.${resolution}.json`], { cwd: clientDir }).catch((e: { stdout: string }) => e);
    expect(result.stdout).toBe('');
  });

  it.each(RUNTIMES)('runs the client against Prism and the memory receiver under %s', async (_name, nodePath, version) => {
    const { stdout } = await run(nodePath(), ['out/consumer.js', prism.url], { cwd: clientDir });
    const report = JSON.parse(stdout) as Record<string, unknown>;
    expect(report.node).toMatch(version);
    expect(report).toMatchObject({
      kinds: ['resumed', 'not_paused', 'not_found'],
      message: 'Session resumed.',
      errorClass: 'function',
      specIsYaml: true,
      answers: [200, 200],
      handled: ['session.resumed'],
      optionsError: { thrownIsClientClass: true, sameClass: true },
    });
  });

  it('gives ./webhooks/redis the same OptionsError class as ./client and ./webhooks', async () => {
    const dir = await installProject(work, 'redis-consumer', [tarballs.client.file, 'bullmq@6.7.0', 'ioredis@6.0.0'], {
      'consumer.mjs': `
import { OptionsError } from 'session-resume-api/client';
import { OptionsError as WebhooksOptionsError } from 'session-resume-api/webhooks';
import { createRedisEventStore, OptionsError as RedisOptionsError } from 'session-resume-api/webhooks/redis';
let thrown;
try {
  createRedisEventStore({ url: 'redis://127.0.0.1:1', concurrency: 0 });
} catch (error) {
  thrown = error;
}
console.log(JSON.stringify([thrown instanceof OptionsError, thrown instanceof WebhooksOptionsError, RedisOptionsError === OptionsError]));
`,
    });
    const { stdout } = await run(process.execPath, ['consumer.mjs'], { cwd: dir });
    expect(JSON.parse(stdout)).toEqual([true, true, true]);
  });

  it('loads no Node built-in from the browser entries (./client, ./msw, ./sandbox) or any chunk they import', () => {
    const dist = join(clientDir, 'node_modules/session-resume-api/dist');
    const imports = (file: string) =>
      [...readFileSync(join(dist, file), 'utf8').matchAll(/\bfrom\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)|^import\s*["']([^"']+)["']/gm)].map(
        (m) => (m[1] ?? m[2] ?? m[3]) as string,
      );
    const offenders: string[] = [];
    const seen = new Set<string>();
    const queue = ['index.js', 'msw.js', 'sandbox.js'];
    while (queue.length) {
      const file = queue.pop() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const specifier of imports(file)) {
        if (specifier.startsWith('./')) queue.push(specifier.slice(2));
        else if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0] ?? specifier)) offenders.push(`${file} → ${specifier}`);
      }
    }
    expect(seen.size).toBeGreaterThan(3);
    expect(offenders).toEqual([]);
  });
});

describe('session-resume-api-cli (the command)', () => {
  it('ships the launcher, one bundle, the spec and the README; no types, sources, tests or dev tools', () => {
    const files = tarballs.cli.files;
    console.log(`session-resume-api-cli tarball: ${statSync(tarballs.cli.file).size} B, ${files.length} files`);
    expect(files).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'bin/session-resume-api.js', 'dist/main.js', 'dist/openapi.json', 'dist/sandbox.json']),
    );
    expect(files.filter((f) => f.endsWith('.ts') || /(^|\/)(tools|mock|diff|test|server|client|types)\/|build-docs/.test(f))).toEqual([]);
  });

  it('installs alone: the library it runs is bundled, not a dependency', () => {
    const { packages, bytes } = measure(join(cliDir, 'node_modules'));
    console.log(`session-resume-api-cli installs ${packages.length} packages, ${(bytes / 1e6).toFixed(2)} MB: ${packages.join(', ')}`);
    expect(packages).toEqual(expect.arrayContaining(['session-resume-api-cli', 'commander']));
    expect(packages.some((p) => ['session-resume-api', 'bullmq', 'ioredis', 'express', 'ajv', 'yaml'].includes(p))).toBe(false);
  });

  it.each(RUNTIMES)('runs the session-resume-api command under %s: --version, and resume against Prism', async (_name, nodePath) => {
    const bin = join(cliDir, 'node_modules/.bin/session-resume-api');
    expect((await run(nodePath(), [bin, '--version'])).stdout.trim()).toBe(VERSION);
    const { stdout } = await run(nodePath(), [bin, 'resume', 'sess_paused_1', '--base-url', prism.url, '--api-key', 'consumer-key', '--json'], { cwd: cliDir });
    expect(JSON.parse(stdout)).toMatchObject({ sessionId: 'sess_paused_1', kind: 'resumed', status: 200 });
  });
});

describe('session-resume-api-server (service package)', () => {
  it('ships the bundles, types, the spec and the built HTML reference; no dev tools', () => {
    const files = tarballs.server.files;
    console.log(`session-resume-api-server tarball: ${statSync(tarballs.server.file).size} B, ${files.length} files`);
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/session-resume-api-server.js',
        'dist/index.js',
        'dist/main.js',
        'dist/openapi.yaml',
        'dist/docs/index.html',
        'dist/types/server/index.d.ts',
      ]),
    );
    expect(files.filter((f) => (f.endsWith('.ts') && !f.endsWith('.d.ts')) || /(^|\/)(tools|mock|diff|test|client)\/|build-docs/.test(f))).toEqual([]);
  });

  it.each(RUNTIMES)('serves resume through createApp as a library under %s', async (_name, nodePath, version) => {
    const { stdout } = await run(nodePath(), ['out/consumer.js'], { cwd: serverDir });
    expect(JSON.parse(stdout)).toMatchObject({ node: expect.stringMatching(version), statuses: [200, 409] });
  });

  it('runs the session-resume-api-server command, which serves /docs', async () => {
    const port = await getFreePort();
    const child = spawn(join(serverDir, 'node_modules/.bin/session-resume-api-server'), [], {
      // An undefined value leaves the variable out (child_process); an empty REDIS_URL would be refused.
      env: { ...process.env, PORT: String(port), API_KEYS: 'k1', REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined },
      stdio: 'ignore',
    });
    try {
      let docs: Response | undefined;
      await waitFor(
        async () => {
          docs = await fetch(`http://127.0.0.1:${port}/docs`).catch(() => undefined);
          return docs?.status === 200;
        },
        { timeoutMs: 20_000, what: 'GET /docs' },
      );
      if (!docs) throw new Error('no answer from /docs');
      expect(docs.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await docs.text()).toContain('Session Resume');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
