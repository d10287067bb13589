/**
 * The delivery engine's retry rules (runtime/delivery/retry-rules.ts): WEBHOOK_RETRY_SCHEDULE's
 * reader, a receiver's Retry-After, and what follows a failed attempt.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { WEBHOOK_DELIVERY_POLICY, type WebhookDeliveryPolicy } from '@session-resume-api/runtime/behaviour';
import { nextStep, parseRetrySchedule, scheduledDelayMs, STANDARD_WEBHOOKS_SCHEDULE_MS } from '@session-resume-api/runtime/delivery/retry-rules';

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
      expect(() => parseRetrySchedule(`0,${bad}`), bad).toThrow(
        `"${bad}" is not a delay: write a number with an optional unit ms, s, m, h or d, e.g. 0,5s,5m,30m,2h.`,
      );
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

describe('nextStep follows the delivery policy it is given', () => {
  const schedule = [0, 5000, 300_000];
  const policy = (retryAfter: Partial<WebhookDeliveryPolicy['retryAfter']>, retry: Partial<WebhookDeliveryPolicy['retry']> = {}): WebhookDeliveryPolicy => ({
    ...WEBHOOK_DELIVERY_POLICY,
    retryAfter: { ...WEBHOOK_DELIVERY_POLICY.retryAfter, ...retryAfter },
    retry: { ...WEBHOOK_DELIVERY_POLICY.retry, ...retry },
  });

  it("uses the contract's schedule and cap by default: a Retry-After beyond the cap waits the cap", () => {
    expect(STANDARD_WEBHOOKS_SCHEDULE_MS).toBe(WEBHOOK_DELIVERY_POLICY.retry.scheduleMs);
    const beyond = String(WEBHOOK_DELIVERY_POLICY.retryAfter.maxMs / 1000 + 1);
    expect(nextStep(schedule, 1, { status: 503, retryAfter: beyond }, NOW)).toEqual({ kind: 'retry', delayMs: WEBHOOK_DELIVERY_POLICY.retryAfter.maxMs });
  });

  it('waits at most the cap it is given, or only the schedule when the cap gives up', () => {
    expect(nextStep(schedule, 1, { status: 503, retryAfter: '120' }, NOW, policy({ maxMs: 60_000 }))).toEqual({ kind: 'retry', delayMs: 60_000 });
    expect(nextStep(schedule, 1, { status: 503, retryAfter: '60' }, NOW, policy({ maxMs: 60_000 }))).toEqual({ kind: 'retry', delayMs: 60_000 });
    expect(nextStep(schedule, 1, { status: 503, retryAfter: '120' }, NOW, policy({ maxMs: 60_000, aboveMax: 'giveUp' }))).toEqual({
      kind: 'retry',
      delayMs: 5000,
    });
  });

  it('honours Retry-After on the statuses it names, and ends the event on the statuses it names', () => {
    expect(nextStep(schedule, 1, { status: 500, retryAfter: '60' }, NOW, policy({ statuses: [500] }))).toEqual({ kind: 'retry', delayMs: 60_000 });
    expect(nextStep(schedule, 1, { status: 503, retryAfter: '60' }, NOW, policy({ statuses: [500] }))).toEqual({ kind: 'retry', delayMs: 5000 });
    expect(nextStep(schedule, 1, { status: 404 }, NOW, policy({}, { endsEventStatuses: [404, 410] }))).toEqual({ kind: 'dead', reason: 'gone' });
    expect(nextStep(schedule, 1, { status: 410 }, NOW, policy({}, { endsEventStatuses: [404] }))).toEqual({ kind: 'retry', delayMs: 5000 });
  });

  it('never waits less than the schedule nor more than the longer of the schedule and the cap, whatever the answer', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }),
        fc.option(fc.string(), { nil: undefined }),
        fc.integer({ min: 1, max: 2 }),
        (status, retryAfter, attemptsMade) => {
          const step = nextStep(schedule, attemptsMade, { status, retryAfter }, NOW);
          if (status === 410) {
            expect(step).toEqual({ kind: 'dead', reason: 'gone' });
            return;
          }
          if (step.kind !== 'retry') throw new Error('expected a retry');
          const scheduled = schedule[attemptsMade] as number;
          expect(step.delayMs).toBeGreaterThanOrEqual(scheduled);
          expect(step.delayMs).toBeLessThanOrEqual(Math.max(scheduled, WEBHOOK_DELIVERY_POLICY.retryAfter.maxMs));
        },
      ),
    );
  });
});
