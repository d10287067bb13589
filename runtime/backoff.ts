/**
 * Exponential backoff, the one formula of the packages: with full jitter for the client between
 * resume attempts when the answer gives no Retry-After (its shape and numbers are the
 * contract's, x-retry-policy `backoff`), without jitter for the receiver's memory store between
 * handler attempts (doubling, as BullMQ's `exponential` backoff does on the Redis store).
 * Browser-safe.
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
 * `baseMs × factor^(failedAttempt − 1)`.
 * @example exponentialDelayMs(3, 1000, 2) // 4000
 */
export function exponentialDelayMs(failedAttempt: number, baseMs: number, factor: number): number {
  return baseMs * factor ** Math.max(0, failedAttempt - 1);
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
  const ceiling = Math.min(policy.maxMs, exponentialDelayMs(failedAttempt, policy.baseMs, policy.factor));
  return Math.floor(random() * ceiling);
}
