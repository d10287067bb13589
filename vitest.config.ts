import { defineConfig } from 'vitest/config';

// Two tiers (`vitest run --project unit` is `npm run test:unit`):
// - unit: no sockets, Redis or child processes; runs in seconds, with the type tests.
// - integration: real servers, real Redis, Prism, Chromium and processes. Finds (or starts) Redis
//   once and provides its URL to every suite: test/setup/redis.ts.
export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/setup/no-io.ts'],
          typecheck: { enabled: true, include: ['test/unit/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/{integration,e2e,contract,browser,adversarial}/**/*.test.ts'],
          globalSetup: ['test/setup/redis.ts'],
        },
      },
    ],
  },
});
