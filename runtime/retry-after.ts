/**
 * The one Retry-After reader: the client between resume attempts and the delivery engine
 * between webhook attempts both read the header here, and apply the cap their policy in the
 * contract states (x-retry-policy and x-delivery-policy `retryAfter`). Browser-safe.
 */

/** How a policy treats a Retry-After: its cap, and what a longer one does. */
export interface RetryAfterCap {
  /** Longest wait honoured, in ms. */
  readonly maxMs: number;
  /**
   * `waitMax`: a longer Retry-After waits `maxMs`; `giveUp` (and any other value): it ends the
   * retries, so no attempt is sent sooner than asked.
   */
  readonly aboveMax: string;
}

/**
 * Reads Retry-After (RFC 9110 §10.2.3): `delay-seconds` or an HTTP-date (IMF-fixdate, or the
 * obsolete RFC 850 and asctime forms). Returns the wait in ms from `now`, never negative, or
 * undefined when the header is absent or unreadable.
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
 * The wait a policy gives a Retry-After of `askedMs`: the asked wait within the cap; above it,
 * the cap (`waitMax`) or undefined (`giveUp`: no further attempt).
 * @example cappedRetryAfterMs(30_000, { maxMs: 10_000, aboveMax: 'giveUp' }) // undefined
 */
export function cappedRetryAfterMs(askedMs: number, cap: RetryAfterCap): number | undefined {
  if (askedMs <= cap.maxMs) return askedMs;
  return cap.aboveMax === 'waitMax' ? cap.maxMs : undefined;
}
