/**
 * A receiver that records events and then answers late (or not at all) for two hours, driven on an
 * injected clock: the sender, seeing no answer in time, sends each event again on the spec's retry
 * schedule (x-delivery-policy `retry.scheduleMs`) until an attempt comes after the two hours. Each
 * store's test runs it and expects every event handled exactly once.
 */
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { waitFor } from './wait-for.js';

/** How long the receiver answers late. */
export const LATE_FOR_MS = 2 * 60 * 60 * 1000;

/**
 * When each attempt is sent, ms after the first: the schedule's delays added up, through the first
 * attempt after the receiver answers again (5 s, 5 min 5 s, 35 min 5 s, 2 h 35 min 5 s).
 */
export function attemptTimes(scheduleMs: readonly number[] = WEBHOOK_DELIVERY_POLICY.retry.scheduleMs): number[] {
  const times: number[] = [];
  let at = 0;
  for (const delay of scheduleMs) {
    at += delay;
    times.push(at);
    if (at > LATE_FOR_MS) return times;
  }
  return times;
}

/**
 * The window the tests give the stores: the spec's, or at least the 2 h 35 min 5 s the scenario
 * spans. A store must handle any window from two hours to days the same way.
 */
export const scenarioWindowSeconds = (): number => Math.max(WEBHOOK_DELIVERY_POLICY.dedupe.windowMs, attemptTimes().at(-1)! + 60_000) / 1000;

/** What the scenario drives: one delivery, and the clock of the store. */
export interface LateAnswerTarget {
  /** Sends one attempt of event `i` (its body, and its webhook-id when it has one); resolves with the status. */
  deliver(i: number): Promise<number>;
  /** Moves the store's clock to `ms` after the first attempt. */
  moveTo(ms: number): Promise<void> | void;
  /** How many times the handler ran for event `i` so far. */
  handled(i: number): number;
}

/**
 * Sends `events` events on the schedule: every attempt is recorded (the answer reaches nobody until
 * the last), and each event runs once. Resolves with each event's handler runs once processing settles.
 */
export async function runLateAnswerScenario(target: LateAnswerTarget, events: number): Promise<number[]> {
  for (const at of attemptTimes()) {
    await target.moveTo(at);
    for (let i = 0; i < events; i++) {
      const status = await target.deliver(i);
      if (status !== 200) throw new Error(`attempt at ${at} ms of event ${i} was answered ${status}, not 200`);
    }
    // Processing settles before the next attempt: the late ones meet the compact record, not the entry.
    await waitFor(() => Array.from({ length: events }, (_, i) => target.handled(i)).every((n) => n >= 1), { what: 'every event handled' });
  }
  // Time for a second run to show, if one was queued.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return Array.from({ length: events }, (_, i) => target.handled(i));
}
