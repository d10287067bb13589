/** The delivery retry rules, pure, shared by the engine, `listen` and `webhook grade` (x-delivery-policy; x-decisions: webhook-retry). */
import { WEBHOOK_DELIVERY_POLICY, type WebhookDeliveryPolicy } from '../behaviour.js';
import { OptionsError } from '../options-error.js';
import { cappedRetryAfterMs, retryAfterMs } from '../retry-after.js';

/** x-delivery-policy `retry.scheduleMs` (the Standard Webhooks example): the delay before each attempt, the first included, in ms. */
export const STANDARD_WEBHOOKS_SCHEDULE_MS: readonly number[] = WEBHOOK_DELIVERY_POLICY.retry.scheduleMs;

const UNIT_MS: Record<string, number> = { '': 1000, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Reads a schedule such as `0,1s,2s,5m` (units ms, s, m, h, d; bare numbers are seconds); its
 * length is the number of attempts.
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

/**
 * The schedule's entry for attempt `attemptsMade + 1`, never shorter than the receiver's Retry-After.
 * @example scheduledDelayMs([0, 5000, 300000], 1, 60000) // 60000
 */
export function scheduledDelayMs(schedule: readonly number[], attemptsMade: number, askedMs = 0): number {
  const scheduled = schedule[Math.min(Math.max(attemptsMade, 0), schedule.length - 1)] ?? 0;
  return Math.max(scheduled, askedMs);
}

/** What follows a failed attempt: another attempt after `delayMs`, or the dead-letter list. */
export type NextStep = { kind: 'retry'; delayMs: number } | { kind: 'dead'; reason: 'gone' | 'exhausted' };

/** Retry-After honoured only on `retryAfter.statuses`, capped as `retryAfter.aboveMax` says; 0 when nothing to honour. */
function askedDelayMs(failure: { status?: number | undefined; retryAfter?: string | undefined }, now: number, policy: WebhookDeliveryPolicy): number {
  if (failure.status === undefined || !policy.retryAfter.statuses.includes(failure.status)) return 0;
  const asked = retryAfterMs(failure.retryAfter, now);
  return asked === undefined ? 0 : (cappedRetryAfterMs(asked, policy.retryAfter) ?? 0);
}

/**
 * After failed attempt `attemptsMade` (1-based): a status that ends the event (410) or a schedule
 * run out ends it; otherwise the next scheduled delay, never shorter than an honoured Retry-After.
 * @example nextStep([0, 5000, 300000], 1, { status: 503, retryAfter: '60' }) // { kind: 'retry', delayMs: 60000 }
 */
export function nextStep(
  schedule: readonly number[],
  attemptsMade: number,
  failure: { status?: number | undefined; retryAfter?: string | undefined },
  now: number = Date.now(),
  policy: WebhookDeliveryPolicy = WEBHOOK_DELIVERY_POLICY,
): NextStep {
  if (failure.status !== undefined && policy.retry.endsEventStatuses.includes(failure.status)) return { kind: 'dead', reason: 'gone' };
  if (attemptsMade >= schedule.length) return { kind: 'dead', reason: 'exhausted' };
  return { kind: 'retry', delayMs: scheduledDelayMs(schedule, attemptsMade, askedDelayMs(failure, now, policy)) };
}
