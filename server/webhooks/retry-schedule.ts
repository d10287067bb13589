/**
 * When to retry a failed webhook delivery (x-decisions: webhook-retry): exponential backoff
 * with full jitter, base 1 s, factor 2, cap 60 s, at most 6 attempts. Keep in sync with the
 * spec; test/integration/webhook-sender.test.ts reads the decision text.
 */

import { fullJitterDelayMs, type BackoffPolicy } from '../../spec/backoff.js';

export { BACKOFF_FACTOR } from '../../spec/backoff.js';

/** The retry policy's numbers. */
export interface RetryPolicy extends BackoffPolicy {
  /** Attempts in all, the first included (default 6). */
  maxAttempts: number;
}

/** The defaults recorded in spec/openapi.yaml x-decisions: webhook-retry. */
export const WEBHOOK_RETRY_DEFAULTS: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 6,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
});

/**
 * Delay in ms before the attempt that follows failed attempt number `failedAttempt` (1-based):
 * uniform in [0, min(maxDelayMs, baseDelayMs × 2^(failedAttempt − 1))) ("full jitter"), so
 * that many senders failing together do not retry together. `random` is injectable for tests.
 */
export function backoffDelayMs(
  failedAttempt: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'> = WEBHOOK_RETRY_DEFAULTS,
  random: () => number = Math.random,
): number {
  return fullJitterDelayMs(failedAttempt, policy, random);
}
