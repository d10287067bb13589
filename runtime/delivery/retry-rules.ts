/**
 * The delivery engine's retry rules, pure and shared by every side that delivers (the server's
 * engine, the CLI's `listen` forwarder): the schedule, the receiver's Retry-After, and what
 * follows a failed attempt (x-decisions: webhook-outbox).
 */
import { OptionsError } from '../options-error.js';

/**
 * The Standard Webhooks example schedule (x-decisions: webhook-outbox): the delay before each
 * attempt, in ms: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h.
 */
export const STANDARD_WEBHOOKS_SCHEDULE_MS: readonly number[] = Object.freeze(
  [0, 5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400].map((s) => s * 1000),
);

const UNIT_MS: Record<string, number> = { '': 1000, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Reads a schedule such as `0,1s,2s,5m` (units ms, s, m, h, d; a bare number is seconds): the
 * delay before each attempt, the first included, so its length is the number of attempts.
 * @example parseRetrySchedule('0,5s,5m') // [0, 5000, 300000]
 */
export function parseRetrySchedule(text: string): number[] {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length === 0 || parts.length > 100) {
    throw new OptionsError('A retry schedule lists 1 to 100 delays, e.g. 0,5s,5m,30m,2h.', { option: 'schedule' });
  }
  return parts.map((part) => {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(part);
    if (!match) {
      throw new OptionsError(`"${part}" is not a delay: write a number with an optional unit ms, s, m, h or d, e.g. 0,5s,5m,30m,2h.`, { option: 'schedule' });
    }
    const ms = Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? ''] as number));
    if (ms > 7 * 86_400_000) throw new OptionsError(`"${part}" is longer than 7 days.`, { option: 'schedule' });
    return ms;
  });
}

/** Longest Retry-After the delivery engine honours, in ms (24 h): a longer one is cut to this. */
export const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * A receiver's Retry-After (RFC 9110 §10.2.3: seconds or an HTTP-date) in ms from `now`,
 * between 0 and 24 h; undefined when absent or unreadable.
 * @example retryAfterMs('120') // 120000
 */
export function retryAfterMs(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : /[a-z]/i.test(text) ? Date.parse(text) - now : Number.NaN;
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS) : undefined;
}

/**
 * The delay before attempt `attemptsMade + 1`: the schedule's entry, never shorter than the
 * receiver asked with Retry-After (x-decisions: webhook-outbox).
 * @example scheduledDelayMs([0, 5000, 300000], 1, 60000) // 60000
 */
export function scheduledDelayMs(schedule: readonly number[], attemptsMade: number, askedMs = 0): number {
  const scheduled = schedule[Math.min(Math.max(attemptsMade, 0), schedule.length - 1)] ?? 0;
  return Math.max(scheduled, askedMs);
}

/** What follows a failed attempt: another attempt after `delayMs`, or the dead-letter list. */
export type NextStep = { kind: 'retry'; delayMs: number } | { kind: 'dead'; reason: 'gone' | 'exhausted' };

/**
 * Decides what follows failed attempt number `attemptsMade` (1-based) that got `status` (when the
 * receiver answered) and `retryAfter` (its header): 410 Gone ends the event at once; a schedule
 * run out ends it; otherwise the next scheduled delay, never shorter than a Retry-After sent
 * with 429 or 503.
 * @example nextStep([0, 5000, 300000], 1, { status: 503, retryAfter: '60' }) // { kind: 'retry', delayMs: 60000 }
 */
export function nextStep(
  schedule: readonly number[],
  attemptsMade: number,
  failure: { status?: number | undefined; retryAfter?: string | undefined },
  now: number = Date.now(),
): NextStep {
  if (failure.status === 410) return { kind: 'dead', reason: 'gone' };
  if (attemptsMade >= schedule.length) return { kind: 'dead', reason: 'exhausted' };
  const honoured = failure.status === 429 || failure.status === 503;
  const asked = honoured ? (retryAfterMs(failure.retryAfter, now) ?? 0) : 0;
  return { kind: 'retry', delayMs: scheduledDelayMs(schedule, attemptsMade, asked) };
}
