/**
 * Exponential backoff with full jitter: the client's wait between resume attempts when the
 * answer gives no Retry-After. The shape and its numbers are the contract's (x-retry-policy
 * `backoff`). Browser-safe.
 */

/** The numbers of a backoff, as x-retry-policy `backoff` states them (ms). */
export interface BackoffPolicy {
  /** Delay scale of the first retry, in ms. */
  readonly baseMs: number;
  /** Growth of the scale from one failure to the next. */
  readonly factor: number;
  /** Upper bound of any delay, in ms. */
  readonly maxMs: number;
}

/**
 * Delay in ms before the attempt that follows failed attempt number `failedAttempt` (1-based):
 * uniform in [0, min(maxMs, baseMs × factor^(failedAttempt − 1))) ("full jitter"), so that
 * many callers failing together do not retry together.
 *
 * @param failedAttempt - 1 for the first failure
 * @param policy - base, factor and cap
 * @param [random=Math.random] - a source in [0, 1), injectable for tests
 * @example fullJitterDelayMs(3, { baseMs: 1000, factor: 2, maxMs: 60_000 }) // in [0, 4000)
 */
export function fullJitterDelayMs(failedAttempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * policy.factor ** Math.max(0, failedAttempt - 1));
  return Math.floor(random() * ceiling);
}
