import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Two tiers (`vitest run --project unit` is `npm run test:unit`):
// - unit: no sockets, Redis or child processes; runs in seconds, with the type tests.
// - integration: real servers, real Redis, Prism, Chromium and processes. Finds (or starts) Redis
//   once and provides its URL to every suite: test/setup/redis.ts.
// - slow (only with TEST_FULL=1, which CI sets; `npm run test:full`): the runtime, packed-tarball
//   and long fault suites under test/slow/. The runtimes come from their own manifest,
//   test/slow/runtimes/package.json, installed on first use: test/setup/runtimes.ts.
const full = process.env.TEST_FULL === '1';
/** The unit tier's files and guard, shared with the mutation run (vitest.mutation.config.ts). */
export const unitTier = {
  name: 'unit',
  include: ['test/unit/**/*.test.ts'],
  setupFiles: ['test/setup/no-io.ts'],
};

/**
 * The library's entries by name (`session-resume-api/client`, …) as the "source" files its
 * package.json exports map them to, under the repository at `root`: the tools (cli/) import the
 * library by name, and a test runs their TypeScript with the library's, never a stale build.
 */
export function libraryAliases(root: string): { find: RegExp; replacement: string }[] {
  const { exports } = JSON.parse(readFileSync(join(root, 'client/package.json'), 'utf8')) as { exports: Record<string, string | { source?: string }> };
  return Object.entries(exports).flatMap(([subpath, target]) =>
    typeof target === 'object' && target.source
      ? [{ find: new RegExp(`^session-resume-api${subpath.slice(1)}$`), replacement: join(root, 'client', target.source) }]
      : [],
  );
}

export default defineConfig({
  resolve: { alias: libraryAliases(fileURLToPath(new URL('.', import.meta.url))) },
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          ...unitTier,
          // CPU-bound: one file per core (Vitest's default is cores - 1). Runs first (group 0).
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
          typecheck: { enabled: true, include: ['test/unit/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          // Three files at once on 2 cores: integration files spend most of their time waiting
          // on child processes, Redis and sockets (the suite took about 9 min one file at a
          // time, about 4.6 min three at a time). Files share no resource: tests that stop,
          // pause or flood anything start their own redis-server and ports.
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
          include: ['test/{integration,e2e,contract,browser,adversarial}/**/*.test.ts', ...(full ? ['test/slow/**/*.test.ts'] : [])],
          globalSetup: ['test/setup/build.ts', 'test/setup/redis.ts', 'test/setup/packages.ts', ...(full ? ['test/setup/runtimes.ts'] : [])],
        },
      },
    ],
  },
});
