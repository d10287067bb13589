/**
 * The delivery engine's retry rules (runtime/delivery/retry-rules.ts): WEBHOOK_RETRY_SCHEDULE's
 * reader, a receiver's Retry-After, and what follows a failed attempt.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { MAX_RETRY_AFTER_MS, nextStep, parseRetrySchedule, retryAfterMs, scheduledDelayMs, STANDARD_WEBHOOKS_SCHEDULE_MS } from '@session-resume-api/runtime/delivery/retry-rules';

const NOW = Date.UTC(2026, 10, 23, 10, 0, 0);
const DAY = 86_400_000;

describe('parseRetrySchedule', () => {
  it('reads delays with units ms, s, m, h, d, a bare number as seconds, decimals rounded to ms', () => {
    expect(parseRetrySchedule('0, 250ms,5s,2m,1h,1d,3,1.5s,0.0004s')).toEqual([0, 250, 5000, 120_000, 3_600_000, DAY, 3000, 1500, 0]);
  });

  it('accepts 7 days exactly and refuses a delay one millisecond longer', () => {
    expect(parseRetrySchedule('7d,168h')).toEqual([7 * DAY, 7 * DAY]);
    expect(() => parseRetrySchedule(`${7 * DAY + 1}ms`)).toThrow(`"${7 * DAY + 1}ms" is longer than 7 days.`);
    expect(() => parseRetrySchedule('8d')).toThrow(OptionsError);
  });

  it('accepts 100 delays and refuses 101', () => {
    expect(parseRetrySchedule(Array(100).fill('1s').join(','))).toHaveLength(100);
    expect(() => parseRetrySchedule(Array(101).fill('1s').join(','))).toThrow('A retry schedule lists 1 to 100 delays, e.g. 0,5s,5m,30m,2h.');
  });

  it('refuses junk around a delay, an empty entry and an unknown unit, naming the entry', () => {
    for (const bad of ['x5s', '5sec', '5s ms', '5 s', '.5s', '5.s', '-1s', '5S', '1w', '']) {
      expect(() => parseRetrySchedule(`0,${bad}`), bad).toThrow(`"${bad}" is not a delay: write a number with an optional unit ms, s, m, h or d, e.g. 0,5s,5m,30m,2h.`);
    }
    expect(() => parseRetrySchedule('0,,5s')).toThrow(OptionsError);
  });

  it('gives each delay as a whole number of ms in [0, 7 days] for any readable schedule', () => {
    const delay = fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.constantFrom('', 'ms', 's', 'm', 'h', 'd'));
    fc.assert(
      fc.property(fc.array(delay, { minLength: 1, maxLength: 100 }), (delays) => {
        const text = delays.map(([n, unit]) => `${n}${unit}`).join(',');
        let parsed: number[];
        try {
          parsed = parseRetrySchedule(text);
        } catch (error) {
          expect((error as Error).message).toMatch(/longer than 7 days/);
          return;
        }
        expect(parsed).toHaveLength(delays.length);
        for (const ms of parsed) expect(Number.isInteger(ms) && ms >= 0 && ms <= 7 * DAY).toBe(true);
      }),
    );
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP-dates from now, between 0 and 24 h', () => {
    expect(retryAfterMs(' 120 ', NOW)).toBe(120_000);
    expect(retryAfterMs(new Date(NOW + 90_000).toUTCString(), NOW)).toBe(90_000);
    expect(retryAfterMs(new Date(NOW - 90_000).toUTCString(), NOW)).toBe(0);
    expect(retryAfterMs('999999', NOW)).toBe(MAX_RETRY_AFTER_MS);
  });

  it('gives undefined for an absent or unreadable value', () => {
    for (const bad of [undefined, '', '1.5', '-5', '12abc', 'soon', '2026-11-23']) expect(retryAfterMs(bad, NOW), String(bad)).toBeUndefined();
  });
});

describe('nextStep', () => {
  const schedule = [0, 5000, 300_000];

  it('retries after the next scheduled delay, the last one repeating past the end', () => {
    expect(nextStep(schedule, 1, { status: 500 }, NOW)).toEqual({ kind: 'retry', delayMs: 5000 });
    expect(nextStep(schedule, 2, {}, NOW)).toEqual({ kind: 'retry', delayMs: 300_000 });
    expect(scheduledDelayMs(schedule, 7)).toBe(300_000);
    expect(scheduledDelayMs(schedule, -1)).toBe(0);
    expect(scheduledDelayMs([], 0)).toBe(0);
  });

  it('honours Retry-After on 429 and 503 when longer than the schedule, and on no other status', () => {
    expect(nextStep(schedule, 1, { status: 429, retryAfter: '60' }, NOW)).toEqual({ kind: 'retry', delayMs: 60_000 });
    expect(nextStep(schedule, 1, { status: 503, retryAfter: '60' }, NOW)).toEqual({ kind: 'retry', delayMs: 60_000 });
    expect(nextStep(schedule, 1, { status: 503, retryAfter: '1' }, NOW)).toEqual({ kind: 'retry', delayMs: 5000 });
    expect(nextStep(schedule, 1, { status: 500, retryAfter: '60' }, NOW)).toEqual({ kind: 'retry', delayMs: 5000 });
    expect(nextStep(schedule, 1, { status: 429, retryAfter: 'soon' }, NOW)).toEqual({ kind: 'retry', delayMs: 5000 });
  });

  it('ends the event at once on 410 Gone, and when the schedule has run out', () => {
    expect(nextStep(schedule, 1, { status: 410 }, NOW)).toEqual({ kind: 'dead', reason: 'gone' });
    expect(nextStep(schedule, 3, { status: 503 }, NOW)).toEqual({ kind: 'dead', reason: 'exhausted' });
    expect(nextStep(STANDARD_WEBHOOKS_SCHEDULE_MS, STANDARD_WEBHOOKS_SCHEDULE_MS.length - 1, {}, NOW)).toEqual({ kind: 'retry', delayMs: DAY });
  });
});
