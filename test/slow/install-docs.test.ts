/**
 * What the README and docs tell a new user to install works as shown, in fresh projects:
 * - the Install section (README.md and docs/client.md, the same ```sh install block): `npm pack`
 *   in a clone (the run's shared build, laid out as the clone's workspaces), then each
 *   `npm install` of a tarball in a project beside it; the packages import and the commands run;
 * - the MSW quick start (README.md and docs/mock-sandbox-msw.md): a project that installs exactly
 *   the client tarball and the page's ```sh install line runs every MSW snippet of both pages.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmEnv, root, run, sharedPackages } from '../helpers/package-tarball.js';

const page = (path: string) => readFileSync(join(root, path), 'utf8');

/** The command lines of the ```sh install blocks of `markdown`, each with the comment after it. */
function installBlocks(markdown: string): { command: string; comment: string }[][] {
  return [...markdown.matchAll(/^```sh install\n([\s\S]*?)^```$/gm)].map((m) =>
    (m[1] ?? '')
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => {
        const [command = '', comment = ''] = line.split(/\s+#\s+/);
        return { command: command.trim(), comment: comment.trim() };
      }),
  );
}

/** The ```ts blocks that import `session-resume-api/msw`. */
function mswSnippets(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '').filter((code) => code.includes("from 'session-resume-api/msw'"));
}

/**
 * Runs one documented command in `cwd` through a shell, exactly as a user types it; npm's settings
 * (offline cache preferred) come from its environment variables, never from the command line.
 */
async function shell(command: string, cwd: string): Promise<string> {
  expect(command).toMatch(/^npm (pack|install) /);
  const { stdout } = await run('bash', ['-c', command], { cwd, env: { ...process.env, ...npmEnv }, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

const [installSection] = installBlocks(page('README.md'));
let work: string;
let app: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sra-install-docs-'));
  // The clone: the run's shared build of client/, server/ and cli/, under a root package.json
  // that names them as workspaces, as the repository's does.
  const { buildDir } = await sharedPackages();
  const clone = join(work, 'session-resume-api');
  const workspaces = ['client', 'server', 'cli'];
  for (const name of workspaces) cpSync(join(buildDir, name), join(clone, name), { recursive: true });
  writeFileSync(join(clone, 'package.json'), JSON.stringify({ name: 'session-resume-api-workspace', private: true, workspaces }));
  app = join(work, 'my-app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
  for (const { command, comment } of installSection ?? []) await shell(command, comment.startsWith('in the clone') ? clone : app);
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('Install section', () => {
  it('is the same block in README.md and docs/client.md: npm pack in the clone, then npm install of each tarball', () => {
    expect(installSection?.map((c) => c.comment)).toEqual([
      expect.stringMatching(/^in the clone/),
      ...Array(3).fill(expect.stringMatching(/^in your project/)),
    ]);
    expect(installBlocks(page('docs/client.md'))[0]).toEqual(installSection);
  });

  it('installs the three packages from the tarballs: their imports load and their commands run', async () => {
    const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(manifest.dependencies).toEqual({
      'session-resume-api': expect.stringMatching(/^file:\.\.\/session-resume-api-[\d.]+\.tgz$/),
      'session-resume-api-cli': expect.stringMatching(/^file:\.\.\/session-resume-api-cli-[\d.]+\.tgz$/),
      'session-resume-api-server': expect.stringMatching(/^file:\.\.\/session-resume-api-server-[\d.]+\.tgz$/),
    });
    const probe = `
      const client = await import('session-resume-api/client');
      const webhooks = await import('session-resume-api/webhooks');
      const server = await import('session-resume-api-server');
      console.log(JSON.stringify([typeof client.createSessionsClient, typeof webhooks.createWebhookReceiver, typeof server.createApp]));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe], { cwd: app });
    expect(JSON.parse(stdout)).toEqual(['function', 'function', 'function']);
    const version = (JSON.parse(page('client/package.json')) as { version: string }).version;
    for (const bin of ['session-resume-api', 'session-resume-api-server']) {
      expect((await run(join(app, 'node_modules/.bin', bin), ['--version'])).stdout.trim()).toBe(version);
    }
    expect((await run(join(app, 'node_modules/.bin/session-resume-api'), ['--help'])).stdout).toContain('resume');
  });
});

describe('MSW quick start', () => {
  const pages = { 'README.md': page('README.md'), 'docs/mock-sandbox-msw.md': page('docs/mock-sandbox-msw.md') };

  it('names the same packages on both pages, in a block of its own', () => {
    const lines = Object.values(pages).map((markdown) => installBlocks(markdown).filter((block) => block.some((c) => c.command.includes('msw'))));
    expect(lines.map((blocks) => blocks.length)).toEqual([1, 1]);
    expect(lines[0]).toEqual(lines[1]);
    expect(lines[0]?.[0]?.map((c) => c.command)).toEqual(['npm install --save-dev msw@2 openapi-msw@2']);
  });

  it('runs every MSW snippet of both pages in a project that installs exactly what they say', { timeout: 300_000 }, async () => {
    // The client as the Install section installs it, then the MSW page's line, nothing else.
    const dir = join(work, 'msw-app');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'msw-app', private: true, type: 'module' }));
    const clientLine = installSection?.find((c) => c.command.includes('/session-resume-api-0'));
    const mswLine = installBlocks(pages['docs/mock-sandbox-msw.md']).find((block) => block.some((c) => c.command.includes('msw')));
    for (const { command } of [clientLine!, ...mswLine!]) await shell(command, dir);
    const installed = Object.keys(
      (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { devDependencies: object; dependencies: object }).devDependencies,
    );
    expect(installed.sort()).toEqual(['msw', 'openapi-msw']);

    const snippets = Object.entries(pages).flatMap(([name, markdown]) => mswSnippets(markdown).map((code, i) => ({ name: `${name} #${i + 1}`, code })));
    expect(snippets.length).toBe(3);
    // The test runner's afterEach that a snippet calls, defined before it runs, outside its text.
    const runnerGlobals = join(dir, 'test-runner-globals.mjs');
    writeFileSync(runnerGlobals, 'globalThis.afterEach ??= () => {};\n');
    for (const [i, { name, code }] of snippets.entries()) {
      // The snippet as written, then calls that show its handlers answer (a resume, twice).
      const source = `${code}
const resume = () => fetch('https://api.test/v1/sessions/sess_paused_1/resume', { method: 'POST', headers: { authorization: 'Bearer k' } }).then((r) => r.status);
console.log(JSON.stringify([await resume(), await resume()]));
server.close();`;
      const { code: js } = await transform(source, { loader: 'ts', format: 'esm' });
      writeFileSync(join(dir, `snippet-${i}.mjs`), js);
      const { stdout } = await run(process.execPath, ['--import', pathToFileURL(runnerGlobals).href, `snippet-${i}.mjs`], { cwd: dir }).catch(
        (error: { stderr?: string }) => {
          throw new Error(`${name} failed in a fresh project:\n${error.stderr ?? String(error)}`);
        },
      );
      // The stateless handlers forced to notPaused answer 409 twice; the stateful ones flip the session once.
      expect(JSON.parse(stdout), name).toEqual(code.includes("scenario: 'notPaused'") ? [409, 409] : [200, 409]);
    }
  });
});
