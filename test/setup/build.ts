/**
 * Vitest global setup: builds the packages' dist/ once before any integration suite runs, when a
 * source is newer than it. Tests start `npm start` and the built CLIs, and `npm start` builds a
 * stale dist itself: left to them, one suite's build would rewrite dist/ while another reads it.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['.ci/build.mjs', '--if-stale', '--quiet'], { cwd: root, stdio: 'inherit' });
}
