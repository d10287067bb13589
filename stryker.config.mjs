// Mutation testing of the rule modules against the unit tier (`npm run test:mutation`;
// docs/contributing.md#mutation-testing says how to read the report).
// `--mutate <file>` narrows a run to one module; `--concurrency` sets the test processes.

/** The modules that hold the project's rules: each must stay at 90 % or more, all together at 95 %. */
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
  // client grade's rules: what a call with or without a key may retry, and each rule's check.
  'cli/client-grade/grade-observations.ts',
  'cli/client-grade/backoff-check.ts',
  'cli/client-grade/idempotency-checks.ts',
  'cli/client-grade/outcome-checks.ts',
  'cli/client-grade/request-check.ts',
  'cli/client-grade/retry-checks.ts',
  'cli/client-grade/timeout-check.ts',
  // How the behaviour numbers compose (lint:spec) and how their changes are classified (spec:diff).
  'tools/lint/policy-invariants.ts',
  'tools/lint/circuit-hold.ts',
  'tools/lint/decision-numbers.ts',
  'tools/diff/behaviour-changes.ts',
  // watch's rules: one answer, a delivery, a replay, and the rule list.
  'cli/watch/api-checks.ts',
  'cli/watch/webhook-checks.ts',
  'cli/watch/replay-check.ts',
  'cli/watch/watch-rules.ts',
  // webhook grade's checks, on scripted answers (test/unit/webhook-grade-checks.test.ts).
  'cli/webhook-grade/ack-checks.ts',
  'cli/webhook-grade/dedupe-checks.ts',
  'cli/webhook-grade/duplicate-checks.ts',
  'cli/webhook-grade/payload-checks.ts',
  'cli/webhook-grade/signature-checks.ts',
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
  thresholds: { high: 95, low: 90, break: null },
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['.tmp', 'test-output', '.bench-profiles', 'coverage', 'reports'],
};
