/**
 * Exponential backoff, the one formula of the packages: with full jitter for the client
 * between resume attempts, without it for the receiver's memory store between handler
 * attempts (as BullMQ's `exponential` backoff does on the Redis store). Browser-safe.
 */

/** Growth factor of the backoff between attempts. */
export const BACKOFF_FACTOR = 2;

/** The two numbers of a backoff: the first delay's scale and the cap of every delay, in ms. */
export interface BackoffPolicy {
  /** Delay scale of the first retry, in ms. */
  baseDelayMs: number;
  /** Upper bound of any delay, in ms. */
  maxDelayMs: number;
}

/**
 * Delay in ms before the attempt that follows failed attempt number `failedAttempt` (1-based):
 * `baseDelayMs × 2^(failedAttempt − 1)`.
 * @example exponentialDelayMs(3, 1000) // 4000
 */
export function exponentialDelayMs(failedAttempt: number, baseDelayMs: number): number {
  return baseDelayMs * BACKOFF_FACTOR ** Math.max(0, failedAttempt - 1);
}

/**
 * Delay in ms before the attempt that follows failed attempt number `failedAttempt` (1-based):
 * uniform in [0, min(maxDelayMs, baseDelayMs × 2^(failedAttempt − 1))) ("full jitter"), so that
 * many callers failing together do not retry together.
 *
 * @param failedAttempt - 1 for the first failure
 * @param policy - base and cap, in ms
 * @param [random=Math.random] - a source in [0, 1), injectable for tests
 * @example fullJitterDelayMs(3, { baseDelayMs: 1000, maxDelayMs: 60_000 }) // in [0, 4000)
 */
export function fullJitterDelayMs(failedAttempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, exponentialDelayMs(failedAttempt, policy.baseDelayMs));
  return Math.floor(random() * ceiling);
}
