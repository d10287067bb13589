/**
 * `npm start` and `npm run sandbox` rebuild a stale dist/ first (`.ci/build.mjs --if-stale
 * --quiet`, their pre-scripts): the rebuild takes about half a minute, so it says so on stderr
 * even with --quiet, and a fresh build says nothing. Built into a folder of its own (`--out`),
 * so the repository's dist/ that other suites read is left alone.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'sra-if-stale-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const build = () =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, ['.ci/build.mjs', '--if-stale', '--quiet', '--out', out], { cwd: root, timeout: 300_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? 1 : 0, stdout, stderr }),
    ),
  );

it('a stale build says on stderr that it rebuilds; a fresh one prints nothing', { timeout: 600_000 }, async () => {
  const stale = await build();
  expect(stale.code, stale.stderr).toBe(0);
  expect(stale.stderr).toContain('The sources changed since the last build: rebuilding client/dist, server/dist and cli/dist first (about 30 s)');
  expect(stale.stdout).toBe('');
  const fresh = await build();
  expect(fresh).toEqual({ code: 0, stdout: '', stderr: '' });
});
