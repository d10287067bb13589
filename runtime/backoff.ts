/**
 * Exponential backoff, the packages' one formula (x-retry-policy `backoff`): full jitter where many
 * callers fail together (the client's resume retries); capped without jitter for the endpoint
 * circuit's probes and `listen`'s reconnections; doubling for the receiver stores' handler retries.
 * Browser-safe.
 */

/** x-retry-policy `backoff` (ms). */
export interface BackoffPolicy {
  readonly baseMs: number;
  readonly factor: number;
  readonly maxMs: number;
}

/**
 * `baseMs × factor^(failedAttempt − 1)`, `failedAttempt` 1-based.
 * @example exponentialDelayMs(3, 1000, 2) // 4000
 */
export function exponentialDelayMs(failedAttempt: number, baseMs: number, factor: number): number {
  return baseMs * factor ** Math.max(0, failedAttempt - 1);
}

/**
 * `min(maxMs, baseMs × factor^(failedAttempt − 1))`, `failedAttempt` 1-based.
 * @example cappedDelayMs(10, { baseMs: 1000, factor: 2, maxMs: 60_000 }) // 60000
 */
export function cappedDelayMs(failedAttempt: number, policy: BackoffPolicy): number {
  return Math.min(policy.maxMs, exponentialDelayMs(failedAttempt, policy.baseMs, policy.factor));
}

/**
 * Uniform in [0, min(maxMs, baseMs × factor^(failedAttempt − 1))) ("full jitter"), so callers failing
 * together do not retry together.
 * @example fullJitterDelayMs(3, { baseMs: 1000, factor: 2, maxMs: 60_000 }) // in [0, 4000)
 */
export function fullJitterDelayMs(failedAttempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  return Math.floor(random() * cappedDelayMs(failedAttempt, policy));
}
