/** The one Retry-After reader; each policy's cap is the contract's (x-retry-policy, x-delivery-policy `retryAfter`). Browser-safe. */

/** A policy's cap, and what a longer Retry-After does. */
export interface RetryAfterCap {
  readonly maxMs: number;
  /** `waitMax`: a longer one waits `maxMs`; anything else (`giveUp`): it ends the retries, never sooner than asked. */
  readonly aboveMax: string;
}

/**
 * Reads Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date; the wait in ms from `now`,
 * never negative, or undefined when absent or unreadable.
 * @example retryAfterMs('120') // 120000
 */
export function retryAfterMs(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Dates have letters (month, weekday); anything else (a sign, a fraction) is unreadable.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The asked wait within the cap; above it the cap (`waitMax`) or undefined (no further attempt).
 * @example cappedRetryAfterMs(30_000, { maxMs: 10_000, aboveMax: 'giveUp' }) // undefined
 */
export function cappedRetryAfterMs(askedMs: number, cap: RetryAfterCap): number | undefined {
  if (askedMs <= cap.maxMs) return askedMs;
  return cap.aboveMax === 'waitMax' ? cap.maxMs : undefined;
}
