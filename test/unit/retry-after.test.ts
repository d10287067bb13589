/**
 * The one Retry-After reader (runtime/retry-after.ts) the client and the delivery engine share,
 * and the cap each applies from its policy in the contract.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RESUME_RETRY_POLICY, WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { cappedRetryAfterMs, retryAfterMs } from '@session-resume-api/runtime/retry-after';

const NOW = Date.UTC(2026, 10, 23, 10, 0, 0);

describe('retryAfterMs (RFC 9110 §10.2.3)', () => {
  it('reads delay-seconds, trimmed, as ms', () => {
    expect(retryAfterMs('30', NOW)).toBe(30_000);
    expect(retryAfterMs(' 0 ', NOW)).toBe(0);
    expect(retryAfterMs(' 120 ', NOW)).toBe(120_000);
  });

  it('reads an HTTP-date in each of its three forms as ms from now, a past date as 0', () => {
    const now = Date.UTC(1994, 10, 6, 8, 49, 0);
    expect(retryAfterMs('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(37_000);
    expect(retryAfterMs('Sunday, 06-Nov-94 08:49:37 GMT', now)).toBe(37_000);
    expect(retryAfterMs('Sun Nov  6 08:49:37 1994', now)).toBeGreaterThanOrEqual(0);
    expect(retryAfterMs('Sun, 06 Nov 1994 08:49:37 GMT', now + 500)).toBe(36_500);
    expect(retryAfterMs('Sat, 05 Nov 1994 08:49:37 GMT', now)).toBe(0);
  });

  it('measures an HTTP-date from the current time when no clock is given', () => {
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    expect(retryAfterMs(inAMinute)).toBeGreaterThan(50_000);
    expect(retryAfterMs(inAMinute)).toBeLessThanOrEqual(60_000);
  });

  it('gives undefined for an absent or unreadable value, and never reads digits alone as a date', () => {
    for (const bad of [null, undefined, '', '-5', '1.5', '1.0', 'soon', '12 seconds', '30s', 'x30', '12abc', '2026-13-45', '2026-11-23']) {
      expect(retryAfterMs(bad, NOW), String(bad)).toBeUndefined();
    }
  });

  it('gives undefined or a whole, non-negative wait for any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.nat().map(String),
          fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
        ),
        (text) => {
          const ms = retryAfterMs(text, NOW);
          expect(ms === undefined || (Number.isInteger(ms) && ms >= 0)).toBe(true);
        },
      ),
    );
  });
});

describe('cappedRetryAfterMs: the cap of a policy', () => {
  it('keeps a wait up to the cap as asked, the cap itself included', () => {
    expect(cappedRetryAfterMs(0, { maxMs: 10_000, aboveMax: 'giveUp' })).toBe(0);
    expect(cappedRetryAfterMs(10_000, { maxMs: 10_000, aboveMax: 'giveUp' })).toBe(10_000);
    expect(cappedRetryAfterMs(10_000, { maxMs: 10_000, aboveMax: 'waitMax' })).toBe(10_000);
  });

  it('above the cap, waits the cap (waitMax) or gives up (giveUp, and any other word)', () => {
    expect(cappedRetryAfterMs(10_001, { maxMs: 10_000, aboveMax: 'waitMax' })).toBe(10_000);
    expect(cappedRetryAfterMs(10_001, { maxMs: 10_000, aboveMax: 'giveUp' })).toBeUndefined();
    expect(cappedRetryAfterMs(10_001, { maxMs: 10_000, aboveMax: 'other' })).toBeUndefined();
  });

  it('the client gives up above its cap; the delivery engine waits its cap', () => {
    expect(cappedRetryAfterMs(RESUME_RETRY_POLICY.retryAfter.maxMs + 1, RESUME_RETRY_POLICY.retryAfter)).toBeUndefined();
    expect(cappedRetryAfterMs(WEBHOOK_DELIVERY_POLICY.retryAfter.maxMs * 2, WEBHOOK_DELIVERY_POLICY.retryAfter)).toBe(WEBHOOK_DELIVERY_POLICY.retryAfter.maxMs);
  });

  it('never gives a wait shorter than asked, nor one above the cap', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.constantFrom('waitMax', 'giveUp'), (asked, maxMs, aboveMax) => {
        const wait = cappedRetryAfterMs(asked, { maxMs, aboveMax });
        if (wait === undefined) {
          expect(aboveMax === 'giveUp' && asked > maxMs).toBe(true);
          return;
        }
        expect(wait).toBeLessThanOrEqual(maxMs);
        expect(wait === asked || (aboveMax === 'waitMax' && asked > maxMs)).toBe(true);
      }),
    );
  });
});
