/**
 * The invariants between the behaviour policies (x-retry-policy, x-delivery-policy), each stated
 * in words with the numbers it compared: above all, that a receiver's dedupe record outlives every
 * redelivery the sender makes on its own. `npm run lint:spec` runs them (check-policies.ts).
 * Spectral's `behaviour-policies-consistent` checks each policy against itself; these check how
 * the numbers compose.
 */
import { circuitDelay, type CircuitFields } from './circuit-hold.js';

/** The x-retry-policy fields the invariants read. */
export interface RetryFields {
  retryableStatuses: readonly number[];
  idempotencyKey: { retentionMs: number };
  mayHaveApplied: { statuses: readonly number[] };
  retryAfter: { statuses: readonly number[]; maxMs: number };
  attempts: { maxTotalMs: number };
  backoff: { maxMs: number };
}

/** The x-delivery-policy fields the invariants read (endpointHealth only through circuit-hold.ts). */
export interface DeliveryFields {
  decisions: readonly string[];
  answerDeadlineMs: number;
  dedupe: { windowMs: number };
  retry: { scheduleMs: readonly number[] };
  retryAfter: { statuses: readonly number[]; maxMs: number };
  endpointHealth?: CircuitFields;
}

/** One invariant as checked: its id, whether it holds, and what it says with the numbers. */
export interface InvariantResult {
  id: string;
  holds: boolean;
  /** The invariant and the numbers compared, in words. */
  text: string;
}

/** The id of the decision that records what the window does not cover: an operator's re-send. */
export const MANUAL_REDELIVERY_DECISION = 'manual-redelivery';

/**
 * A duration in words, exact: its non-zero parts from days down to milliseconds.
 * @example spellDuration(90_061_000) // "1 d 1 h 1 min 1 s"
 */
export function spellDuration(ms: number): string {
  if (ms === 0) return '0 s';
  const units: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1000],
    ['ms', 1],
  ];
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count} ${unit}`);
    rest -= count * size;
  }
  return parts.join(' ');
}

/** The parts of the redelivery horizon, in ms, and how many waits it counts. */
export interface RedeliveryHorizon {
  /** Waits between an event's first attempt and its last: the schedule's after the first, each at least a Retry-After of up to `retryAfter.maxMs`. */
  waitsMs: number;
  waits: number;
  /** One answer deadline per attempt before the last: the receiver may take that long before it fails. */
  deadlinesMs: number;
  holdMs: number;
  drainMs: number;
  drainRounds: number;
  totalMs: number;
}

/**
 * The longest time from an event's first arrival at a receiver to its last automatic redelivery:
 * the receiver may record the event on the first attempt and then fail every answer. Each wait of
 * the schedule may be stretched by a Retry-After floor (on `retryAfter.statuses`) up to
 * `retryAfter.maxMs` (runtime/delivery/retry-rules.ts); a hold while the circuit is open adds to
 * the wait, once, and so does the drain after it.
 */
export function redeliveryHorizon(delivery: DeliveryFields): RedeliveryHorizon {
  const waits = Math.max(delivery.retry.scheduleMs.length - 1, 0);
  const stretch = delivery.retryAfter.statuses.length > 0 ? delivery.retryAfter.maxMs : 0;
  const waitsMs = delivery.retry.scheduleMs.slice(1).reduce((sum, ms) => sum + Math.max(ms, stretch), 0);
  const deadlinesMs = waits * delivery.answerDeadlineMs;
  const circuit = delivery.endpointHealth ? circuitDelay(delivery.endpointHealth, delivery.answerDeadlineMs) : { holdMs: 0, drainMs: 0, drainRounds: 0 };
  return { waitsMs, waits, deadlinesMs, ...circuit, totalMs: waitsMs + deadlinesMs + circuit.holdMs + circuit.drainMs };
}

function windowCoversRedelivery(delivery: DeliveryFields): InvariantResult {
  const h = redeliveryHorizon(delivery);
  const window = delivery.dedupe.windowMs;
  const parts = [
    `${h.waits} waits of the schedule, each stretched to a Retry-After of up to ${spellDuration(delivery.retryAfter.maxMs)}: ${spellDuration(h.waitsMs)}`,
    `${h.waits} answer deadlines of ${spellDuration(delivery.answerDeadlineMs)}: ${spellDuration(h.deadlinesMs)}`,
    ...(delivery.endpointHealth
      ? [
          `one hold while the endpoint's circuit is open: ${spellDuration(h.holdMs)}`,
          `the drain of the longest backlog (${delivery.endpointHealth.maxHeldEvents} events, ${h.drainRounds} rounds of answers at the deadline): ${spellDuration(h.drainMs)}`,
        ]
      : []),
  ];
  const verdict = window >= h.totalMs ? 'covers' : `does NOT cover (${spellDuration(h.totalMs - window)} short)`;
  return {
    id: 'window-covers-redelivery',
    holds: window >= h.totalMs,
    text: `A receiver's dedupe record outlives every automatic redelivery of its event: the dedupe window (dedupe.windowMs, ${spellDuration(window)}) ${verdict} the longest time from an event's first arrival to its last automatic redelivery, ${spellDuration(h.totalMs)} (${parts.join('; ')}).`,
  };
}

function manualRedeliveryRecorded(delivery: DeliveryFields, decisionIds: ReadonlySet<string>): InvariantResult {
  const holds = decisionIds.has(MANUAL_REDELIVERY_DECISION) && delivery.decisions.includes(MANUAL_REDELIVERY_DECISION);
  return {
    id: 'manual-redelivery-recorded',
    holds,
    text: `What no window covers is recorded: an operator's re-send (webhooks recover, replay, endpoint enable) may come at any later time, so x-decisions has "${MANUAL_REDELIVERY_DECISION}" with its size and x-delivery-policy.decisions lists it${holds ? '' : ': it does not'}.`,
  };
}

function statusesClassified(retry: RetryFields): InvariantResult {
  const known = new Set([...retry.mayHaveApplied.statuses, ...retry.retryAfter.statuses]);
  const unknown = retry.retryableStatuses.filter((s) => !known.has(s));
  return {
    id: 'retryable-statuses-classified',
    holds: unknown.length === 0,
    text: `Every retryable status says whether the resume may have been applied: each of retryableStatuses (${retry.retryableStatuses.join(', ')}) is in mayHaveApplied.statuses (${retry.mayHaveApplied.statuses.join(', ')}) or asks the client to come back (retryAfter.statuses: ${retry.retryAfter.statuses.join(', ')})${unknown.length ? `; not: ${unknown.join(', ')}` : ''}.`,
  };
}

function comeBackAppliedNothing(retry: RetryFields): InvariantResult {
  const both = retry.retryAfter.statuses.filter((s) => retry.mayHaveApplied.statuses.includes(s));
  return {
    id: 'come-back-applied-nothing',
    holds: both.length === 0,
    text: `A status that asks the client to come back applied nothing: no status of retryAfter.statuses (${retry.retryAfter.statuses.join(', ')}) is in mayHaveApplied.statuses${both.length ? `; both: ${both.join(', ')}` : ''}.`,
  };
}

function keyOutlivesCall(retry: RetryFields): InvariantResult {
  const { retentionMs } = retry.idempotencyKey;
  const { maxTotalMs } = retry.attempts;
  return {
    id: 'key-outlives-call',
    holds: retentionMs >= maxTotalMs,
    text: `The service keeps an Idempotency-Key for as long as one call may retry with it: idempotencyKey.retentionMs (${spellDuration(retentionMs)}) is at least attempts.maxTotalMs (${spellDuration(maxTotalMs)}).`,
  };
}

function backoffWithinRetryAfterCap(retry: RetryFields): InvariantResult {
  return {
    id: 'backoff-within-retry-after-cap',
    holds: retry.backoff.maxMs <= retry.retryAfter.maxMs,
    text: `The client's one longest-wait option (maxRetryDelayMs) defaults to retryAfter.maxMs and caps every wait, so the backoff's own cap is within it: backoff.maxMs (${spellDuration(retry.backoff.maxMs)}) is at most retryAfter.maxMs (${spellDuration(retry.retryAfter.maxMs)}).`,
  };
}

/** Every invariant between the two policies, in a fixed order. */
export function checkPolicyInvariants(retry: RetryFields, delivery: DeliveryFields, decisionIds: ReadonlySet<string>): InvariantResult[] {
  return [
    windowCoversRedelivery(delivery),
    manualRedeliveryRecorded(delivery, decisionIds),
    statusesClassified(retry),
    comeBackAppliedNothing(retry),
    keyOutlivesCall(retry),
    backoffWithinRetryAfterCap(retry),
  ];
}
