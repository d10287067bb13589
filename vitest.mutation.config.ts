import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { libraryAliases, unitTier } from './vitest.config.js';

// The unit tier alone, as StrykerJS runs it (stryker.config.mjs): the same files and the same
// no-sockets guard, without the type tests (they kill no mutant). Stryker sets the pool.
export default defineConfig({
  resolve: {
    // Stryker mutates a copy of the repository whose node_modules links to the original one, so
    // the workspace packages would resolve to the unmutated runtime/ and client/: point them at
    // this copy's (the same files their exports map names).
    alias: [
      { find: /^@session-resume-api\/runtime\/(.+)$/, replacement: `${fileURLToPath(new URL('./runtime/', import.meta.url))}$1.ts` },
      ...libraryAliases(fileURLToPath(new URL('.', import.meta.url))),
    ],
  },
  test: {
    ...unitTier,
    testTimeout: 30_000,
  },
});
