// Mutation testing of the rule modules against the unit tier (`npm run test:mutation`;
// docs/contributing.md#mutation-testing says how to read the report).
// `--mutate <file>` narrows a run to one module; `--concurrency` sets the test processes.

/** The modules that hold the project's rules: each must stay at 85 % or more, all together at 90 %. */
export const ruleModules = [
  'client/retry.ts',
  'client/outcome.ts',
  'client/rate-limit.ts',
  'runtime/backoff.ts',
  'runtime/retry-after.ts',
  'runtime/event-identity.ts',
  'client/webhooks/verify-signature.ts',
  'client/webhooks/webhook-headers.ts',
  'client/webhooks/tolerant-event.ts',
  'runtime/webhook-url.ts',
  'runtime/delivery/retry-rules.ts',
  'server/config.ts',
  // Per-session order: the rule and the memory store's marks.
  'client/webhooks/order-position.ts',
  'client/webhooks/memory/session-marks.ts',
  // The receiver's record/deadline rule on the TypeScript side (the record script is Lua, which
  // StrykerJS does not mutate: the integration tests of the Redis store guard it).
  'client/webhooks/redis/record-call.ts',
  'client/webhooks/redis/redis-clock.ts',
  'client/webhooks/redis/reject-after.ts',
  // The grader's rule list and the sandbox delivery profile parser.
  'runtime/delivery/delivery-rules.ts',
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  mutate: ruleModules,
  coverageAnalysis: 'perTest',
  // vitest strips types without checking them, so the `// @ts-nocheck` Stryker would prepend to
  // every file would only change the bytes of files some tests read (a generated module is
  // compared with its generator's output).
  disableTypeChecks: false,
  // Shared machines: two test processes at most.
  concurrency: 2,
  // Only mutants whose module or covering tests changed since the last run are run again.
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { reportScoreTable: true, reportMutants: false, allowEmojis: false },
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['.tmp', 'test-output', '.bench-profiles', 'coverage', 'reports'],
};
