import { defineConfig } from 'vitest/config';
import { unitTier } from './vitest.config.js';

// The unit tier alone, as StrykerJS runs it (stryker.config.mjs): the same files and the same
// no-sockets guard, without the type tests (they kill no mutant). Stryker sets the pool (one worker thread per test process).
export default defineConfig({
  test: {
    ...unitTier,
    testTimeout: 30_000,
  },
});
