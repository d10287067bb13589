/**
 * The runtime suites type-check against the runtimes they import (test/slow/runtimes/package.json,
 * installed by the slow tier's setup): the repository's `npm run typecheck` leaves this folder out.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { root, run } from '../../helpers/package-tarball.js';

it('tsc finds no error in the runtime suites', { timeout: 180_000 }, async () => {
  const result = await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'test/slow/runtimes/tsconfig.json')], {
    cwd: root,
  }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  expect(result).toBe('');
});
