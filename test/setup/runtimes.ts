/**
 * Vitest global setup of the slow tier (TEST_FULL=1): the runtimes its runtime suites run the
 * packed package in (Next.js, Bun, Deno, workerd through miniflare, wrangler, edge-runtime, svix)
 * are not in the repository's package.json, so that `npm ci` stays light. They have a manifest
 * and lock of their own, test/slow/runtimes/package.json, installed here on first use with
 * `npm ci` into test/slow/runtimes/node_modules (gitignored, about 900 MB) and kept while the lock
 * is unchanged; the suites there import them as any dependency. No prompt: it runs in CI too.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The folder of the runtimes' manifest, lock and node_modules. */
const runtimesDir = fileURLToPath(new URL('../slow/runtimes', import.meta.url));
const stamp = join(runtimesDir, 'node_modules/.installed-lock-sha256');

export default async function setup(): Promise<void> {
  const lock = createHash('sha256')
    .update(readFileSync(join(runtimesDir, 'package-lock.json')))
    .digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === lock) return;
  process.stderr.write(
    "installing the slow tier's runtimes once (test/slow/runtimes/package.json: Next.js, Bun, Deno, workerd, wrangler; about 900 MB into test/slow/runtimes/node_modules).\n",
  );
  // A half-installed folder (an interrupted install) is replaced whole.
  rmSync(join(runtimesDir, 'node_modules'), { recursive: true, force: true });
  try {
    // Wrangler's current releases and miniflare ask for Node 22 (engines): their suites run them
    // under Node 24 or through Node 20 as documented; npm's engine warnings would only repeat that.
    await promisify(execFile)('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: runtimesDir,
      env: { ...process.env, npm_config_prefer_offline: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    throw new Error(`installing test/slow/runtimes failed: ${(error as { stderr?: string }).stderr ?? error}`, { cause: error });
  }
  writeFileSync(stamp, lock);
}
