/**
 * A failed delivery explained for `webhook grade`: what the receiver answered, and what the
 * service does next by its own retry rules (runtime/delivery/retry-rules.ts), in one sentence
 * kept apart so the report says it once.
 */
import type { DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';
import { nextStep, STANDARD_WEBHOOKS_SCHEDULE_MS } from '@session-resume-api/runtime/delivery/retry-rules';
import { formatDelay } from '../format-delay.js';
import type { Verdict } from './grade-context.js';

/** A delivery that did not get its 200. */
export type FailedDelivery = Extract<DeliveryResult, { delivered: false }>;

// The waits after the second attempt: the first retry's wait is said on its own (it may be a Retry-After).
const LATER_WAITS = STANDARD_WEBHOOKS_SCHEDULE_MS.slice(2).map(formatDelay).join(', ');

/** What the service does after this failure, by the delivery engine's rules. */
export function whatTheServiceDoes(result: FailedDelivery): string {
  const step = nextStep(STANDARD_WEBHOOKS_SCHEDULE_MS, 1, { status: result.status, retryAfter: result.retryAfter });
  if (step.kind === 'dead') return 'The service ends the event at once (410 Gone) and lists it as a dead letter: it is never delivered.';
  const unread = result.status !== undefined && result.status >= 200 && result.status < 300 ? ' although the receiver took it, so it arrives again' : '';
  return (
    `The service counts this as a failed delivery${unread}: it sends the event again in ${formatDelay(step.delayMs)}, then after ` +
    `${LATER_WAITS} (${STANDARD_WEBHOOKS_SCHEDULE_MS.length} attempts in all), then lists it as a dead letter.`
  );
}

/** The first failed delivery of `results`, if any. */
export function firstFailure(results: readonly DeliveryResult[]): FailedDelivery | undefined {
  return results.find((r): r is FailedDelivery => !r.delivered);
}

/** A failing verdict for the first failure of `results`, naming what was sent; undefined when all got 200. */
export function failedVerdict(what: string, results: readonly DeliveryResult[]): Verdict | undefined {
  const failure = firstFailure(results);
  if (!failure) return undefined;
  const count = results.filter((r) => !r.delivered).length;
  const share = results.length > 1 ? ` (${count} of ${results.length} failed)` : '';
  return { grade: 'fail', evidence: `${what}${share}: ${failure.message}`, next: whatTheServiceDoes(failure) };
}
