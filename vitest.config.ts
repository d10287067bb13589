import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Finds (or starts) Redis once and provides its URL to every suite: test/setup/redis.ts.
    globalSetup: ['test/setup/redis.ts'],
    typecheck: {
      enabled: true,
      include: ['test/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
