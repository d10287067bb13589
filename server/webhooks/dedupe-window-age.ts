/**
 * How many events about to be sent again are older than the dedupe window receivers keep
 * (`x-delivery-policy.dedupe.windowMs`): a receiver that handled one before no longer holds its
 * record, and may handle it twice. `webhooks recover` and `webhooks replay` say it before sending.
 */
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import type { SessionEvent } from '@session-resume-api/runtime/types';

/** The events selected to be sent again, against the receivers' dedupe window. */
export interface DedupeWindowAge {
  /** The window receivers keep a record of an event, in ms (the spec's `dedupe.windowMs`). */
  windowMs: number;
  /** Events selected. */
  selected: number;
  /** Of those, events whose `timestamp` is older than the window. */
  older: number;
}

/** Counts the events of `payloads` whose `timestamp` is more than the dedupe window before `nowMs`. */
export function dedupeWindowAge(payloads: readonly SessionEvent[], nowMs: number, windowMs: number = WEBHOOK_DELIVERY_POLICY.dedupe.windowMs): DedupeWindowAge {
  const older = payloads.filter((payload) => nowMs - Date.parse(payload.timestamp) > windowMs).length;
  return { windowMs, selected: payloads.length, older };
}

/** The operator's line before sending: empty when no event is older than the window. */
export function describeDedupeWindowAge(age: DedupeWindowAge): string {
  if (age.older === 0) return '';
  return `${age.older} of ${age.selected} event(s) are older than the ${duration(age.windowMs)} dedupe window receivers keep: a receiver may handle them twice.\n`;
}

/** 604800000 → "7-day", 3600000 → "1-hour", 90000 → "90-second". */
function duration(ms: number): string {
  for (const [unit, size] of [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}-${unit}`;
  }
  return `${ms / 1000}-second`;
}
