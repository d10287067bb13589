/**
 * The published package as a consumer gets it: `npm pack`, install the tarball into a fresh
 * project, type-check a consumer of `session-resume-api/client`, and run it against the Prism
 * mock under Node 20 (this process) and Node 24 (the `node@24` npm package).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrism, type PrismServer } from '../helpers/prism.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const npmOptions = ['--no-audit', '--no-fund', '--prefer-offline'];
// Kept between runs (gitignored): the Node 24 binary from the `node@24` npm package.
const node24Dir = join(root, '.tmp/node24');
const node24 = join(node24Dir, 'node_modules/node/bin/node');

const consumerSource = `
import { createSessionsClient, SessionsClientError, type ResumeOutcome } from 'session-resume-api/client';
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
// The built contract loader (used by the server) finds the YAML next to itself.
const contractUrl = new URL('dist/spec/contract.js', import.meta.resolve('session-resume-api/package.json'));
const { contract } = (await import(contractUrl.href)) as { contract: { document: { paths: object } } };
console.log(JSON.stringify({
  node: process.version,
  kinds,
  message,
  errorClass: typeof SessionsClientError,
  specIsYaml: spec.startsWith('openapi: 3.1'),
  contractPaths: Object.keys(contract.document.paths),
}));
`;

let prism: PrismServer;
let work: string;
let tarball: string;
let packedFiles: string[];
let consumer: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sra-package-'));
  const installNode24 = existsSync(node24)
    ? Promise.resolve()
    : (async () => {
        mkdirSync(node24Dir, { recursive: true });
        writeFileSync(join(node24Dir, 'package.json'), '{"private":true}\n');
        await run('npm', ['install', 'node@24', ...npmOptions], { cwd: node24Dir });
      })();
  const [server, packed] = await Promise.all([
    startPrism(),
    // prepack builds dist/ first.
    run('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, maxBuffer: 16 * 1024 * 1024 }),
  ]);
  prism = server;
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string; files: { path: string }[] }];
  tarball = join(work, info.filename);
  packedFiles = info.files.map((f) => f.path);

  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(join(consumer, 'consumer.ts'), consumerSource);
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        outDir: 'out',
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [join(root, 'node_modules/@types')],
        lib: ['ES2023', 'DOM'],
      },
      files: ['consumer.ts'],
    }),
  );
  await Promise.all([run('npm', ['install', tarball, ...npmOptions], { cwd: consumer }), installNode24]);
}, 300_000);

afterAll(async () => {
  await prism?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('npm package', () => {
  it('ships dist, the spec and the README, and no sources or tests', () => {
    expect(packedFiles).toEqual(expect.arrayContaining([
      'package.json',
      'spec/openapi.yaml',
      'dist/spec/openapi.yaml',
      'dist/client/index.js',
      'dist/client/index.d.ts',
      'dist/client/cli/main.js',
      'dist/generated/api.d.ts',
    ]));
    expect(packedFiles.filter((f) => /^(test|client|server|scripts|generated)\/|\.test(-d)?\.|\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
  });

  it('type-checks a consumer of session-resume-api/client against the shipped .d.ts', async () => {
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: consumer }).catch((e: { stdout: string }) => e);
    expect(result.stdout).toBe('');
  });

  it.each([
    ['Node 20', () => process.execPath, /^v20\./],
    ['Node 24', () => node24, /^v24\./],
  ])('runs the consumer against the Prism mock under %s', async (_name, nodePath, version) => {
    const { stdout } = await run(nodePath(), ['out/consumer.js', prism.url], { cwd: consumer });
    const report = JSON.parse(stdout) as Record<string, unknown>;
    expect(report.node).toMatch(version);
    expect(report).toMatchObject({
      kinds: ['resumed', 'not_paused', 'not_found'],
      message: 'Session resumed.',
      errorClass: 'function',
      specIsYaml: true,
      contractPaths: ['/v1/sessions/{session_id}/resume'],
    });
  });

  it('installs the session-resume-api command', async () => {
    const { stdout } = await run(join(consumer, 'node_modules/.bin/session-resume-api'), ['--version']);
    expect(stdout.trim()).toBe('0.1.0');
  });
});
