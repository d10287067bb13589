/**
 * The invariants between the behaviour policies (tools/lint/policy-invariants.ts) and the numbers
 * the decisions' prose must state (tools/lint/decision-numbers.ts): the shipped spec keeps them,
 * and each fails on a spec that breaks it.
 */
import { describe, expect, it } from 'vitest';
import { RESUME_RETRY_POLICY, WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { contract } from '@session-resume-api/runtime/contract';
import { circuitDelay } from '../../tools/lint/circuit-hold.js';
import {
  checkDecisionNumbers,
  decisionClaims,
  type ClaimedDeliveryFields,
  type ClaimedRetryFields,
  type DecisionText,
} from '../../tools/lint/decision-numbers.js';
import { checkPolicyInvariants, MANUAL_REDELIVERY_DECISION, redeliveryHorizon, spellDuration } from '../../tools/lint/policy-invariants.js';

const decisions = (contract.document as unknown as { 'x-decisions': DecisionText[] })['x-decisions'];
const ids = new Set(decisions.map((d) => d.id));
const retry = structuredClone(RESUME_RETRY_POLICY) as unknown as ClaimedRetryFields;
const delivery = structuredClone(WEBHOOK_DELIVERY_POLICY) as unknown as ClaimedDeliveryFields;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The result of invariant `id` with the policies changed by `change`. */
function invariant(id: string, change: (r: ClaimedRetryFields, d: ClaimedDeliveryFields) => void = () => undefined, decisionIds: ReadonlySet<string> = ids) {
  const r = structuredClone(retry);
  const d = structuredClone(delivery);
  change(r, d);
  const result = checkPolicyInvariants(r, d, decisionIds).find((x) => x.id === id);
  if (!result) throw new Error(`no invariant ${id}`);
  return result;
}

describe('spellDuration', () => {
  it('says each non-zero part from days to milliseconds', () => {
    expect(spellDuration(0)).toBe('0 s');
    expect(spellDuration(250)).toBe('250 ms');
    expect(spellDuration(90_061_001)).toBe('1 d 1 h 1 min 1 s 1 ms');
    expect(spellDuration(DAY + 30 * 60_000)).toBe('1 d 30 min');
  });
});

describe('circuitDelay', () => {
  it('holds for disableAfterMs plus one probe interval, and drains the longest backlog in rounds whose window doubles up to its cap', () => {
    const fields = { disableAfterMs: DAY, maxProbeIntervalMs: 60_000, maxHeldEvents: 100_000, drainFirstWindow: 10, drainMaxWindow: 2000 };
    // 10 + 20 + … + 1280 = 2,550 in 8 rounds, then 2,000 a round: 49 more make 100,550 ≥ 100,000.
    expect(circuitDelay(fields, 5000)).toEqual({ holdMs: DAY + 60_000, drainMs: 57 * 5000, drainRounds: 57 });
    expect(circuitDelay({ ...fields, maxHeldEvents: 10 }, 5000)).toEqual({ holdMs: DAY + 60_000, drainMs: 5000, drainRounds: 1 });
    expect(circuitDelay({ ...fields, maxHeldEvents: 11 }, 5000).drainRounds).toBe(2);
    expect(circuitDelay({ ...fields, maxHeldEvents: 30 }, 5000).drainRounds).toBe(2);
    expect(circuitDelay({ ...fields, maxHeldEvents: 31 }, 5000).drainRounds).toBe(3);
    expect(circuitDelay({ ...fields, drainMaxWindow: 10, maxHeldEvents: 35 }, 1000)).toMatchObject({ drainRounds: 4, drainMs: 4000 });
    expect(circuitDelay({ ...fields, drainFirstWindow: 0, drainMaxWindow: 0, maxHeldEvents: 3 }, 1000).drainRounds).toBe(3);
  });
});

describe('redeliveryHorizon', () => {
  it('adds the stretched waits, a deadline per attempt before the last, one hold and the drain', () => {
    const h = redeliveryHorizon(delivery);
    expect(h).toEqual({
      waits: 9,
      waitsMs: 9 * DAY,
      deadlinesMs: 45_000,
      holdMs: DAY + 60_000,
      drainMs: 285_000,
      drainRounds: 57,
      totalMs: 10 * DAY + 60_000 + 45_000 + 285_000,
    });
  });

  it('counts a wait longer than the Retry-After cap as it is, and the raw schedule when no status carries Retry-After', () => {
    const base = { ...delivery, endpointHealth: undefined, answerDeadlineMs: 0 } as ClaimedDeliveryFields;
    expect(
      redeliveryHorizon({ ...base, retry: { ...delivery.retry, scheduleMs: [0, 1000, 5 * HOUR] }, retryAfter: { ...delivery.retryAfter, maxMs: HOUR } })
        .waitsMs,
    ).toBe(HOUR + 5 * HOUR);
    expect(redeliveryHorizon({ ...base, retryAfter: { ...delivery.retryAfter, statuses: [] } }).waitsMs).toBe(
      delivery.retry.scheduleMs.slice(1).reduce((a, b) => a + b, 0),
    );
    expect(redeliveryHorizon({ ...base, retry: { ...delivery.retry, scheduleMs: [0] } })).toMatchObject({ waits: 0, waitsMs: 0, totalMs: 0 });
  });
});

describe('the invariants', () => {
  it('all hold on the shipped spec', () => {
    expect(checkPolicyInvariants(retry, delivery, ids).filter((r) => !r.holds)).toEqual([]);
  });

  it('say each invariant and its numbers in words', () => {
    expect(checkPolicyInvariants(retry, delivery, ids).map((r) => r.text)).toEqual([
      "A receiver's dedupe record outlives every automatic redelivery of its event: the dedupe window (dedupe.windowMs, 11 d) covers the longest time from an event's first arrival to its last automatic redelivery, 10 d 6 min 30 s (9 waits of the schedule, each stretched to a Retry-After of up to 1 d: 9 d; 9 answer deadlines of 5 s: 45 s; one hold while the endpoint's circuit is open: 1 d 1 min; the drain of the longest backlog (100000 events, 57 rounds of answers at the deadline): 4 min 45 s).",
      'What no window covers is recorded: an operator\'s re-send (webhooks recover, replay, endpoint enable) may come at any later time, so x-decisions has "manual-redelivery" with its size and x-delivery-policy.decisions lists it.',
      'Every retryable status says whether the resume may have been applied: each of retryableStatuses (429, 500, 502, 503, 504) is in mayHaveApplied.statuses (500, 502, 504) or asks the client to come back (retryAfter.statuses: 429, 503).',
      'A status that asks the client to come back applied nothing: no status of retryAfter.statuses (429, 503) is in mayHaveApplied.statuses.',
      'The service keeps an Idempotency-Key for as long as one call may retry with it: idempotencyKey.retentionMs (1 d) is at least attempts.maxTotalMs (50 s).',
      "The client's one longest-wait option (maxRetryDelayMs) defaults to retryAfter.maxMs and caps every wait, so the backoff's own cap is within it: backoff.maxMs (10 s) is at most retryAfter.maxMs (10 s).",
    ]);
    const noCircuit = { ...delivery, endpointHealth: undefined } as ClaimedDeliveryFields;
    expect(invariant('window-covers-redelivery', (_r, d) => delete d.endpointHealth).text).toBe(
      `A receiver's dedupe record outlives every automatic redelivery of its event: the dedupe window (dedupe.windowMs, 11 d) covers the longest time from an event's first arrival to its last automatic redelivery, ${spellDuration(redeliveryHorizon(noCircuit).totalMs)} (9 waits of the schedule, each stretched to a Retry-After of up to 1 d: 9 d; 9 answer deadlines of 5 s: 45 s).`,
    );
    expect(invariant('manual-redelivery-recorded', () => undefined, new Set()).text).toMatch(/lists it: it does not\.$/);
    expect(invariant('retryable-statuses-classified', (r) => (r.retryableStatuses = [429, 501])).text).toMatch(
      /\(429, 501\) is in mayHaveApplied.statuses \(500, 502, 504\) or asks the client to come back \(retryAfter.statuses: 429, 503\); not: 501\.$/,
    );
    expect(invariant('come-back-applied-nothing', (r) => (r.mayHaveApplied.statuses = [429, 503])).text).toMatch(
      /is in mayHaveApplied.statuses; both: 429, 503\.$/,
    );
  });

  it('window-covers-redelivery fails on a window shorter than the horizon, saying both in words', () => {
    const result = invariant('window-covers-redelivery', (_r, d) => (d.dedupe.windowMs = HOUR));
    expect(result.holds).toBe(false);
    expect(result.text).toContain('the dedupe window (dedupe.windowMs, 1 h) does NOT cover (9 d 23 h 6 min 30 s short)');
    expect(result.text).toContain('10 d 6 min 30 s');
    const exact = redeliveryHorizon(delivery).totalMs;
    expect(invariant('window-covers-redelivery', (_r, d) => (d.dedupe.windowMs = exact))).toMatchObject({
      holds: true,
      text: expect.stringContaining('(dedupe.windowMs, 10 d 6 min 30 s) covers the longest'),
    });
    expect(invariant('window-covers-redelivery', (_r, d) => (d.dedupe.windowMs = exact - 1)).holds).toBe(false);
  });

  it('manual-redelivery-recorded needs the decision and its place in the delivery policy', () => {
    expect(invariant('manual-redelivery-recorded', () => undefined, new Set([...ids].filter((id) => id !== MANUAL_REDELIVERY_DECISION))).holds).toBe(false);
    expect(invariant('manual-redelivery-recorded', (_r, d) => (d.decisions = d.decisions.filter((id) => id !== MANUAL_REDELIVERY_DECISION))).holds).toBe(false);
  });

  it('retryable-statuses-classified fails on a retryable status neither applied-maybe nor come-back', () => {
    const result = invariant('retryable-statuses-classified', (r) => (r.retryableStatuses = [...r.retryableStatuses, 501]));
    expect(result).toMatchObject({ holds: false });
    expect(result.text).toContain('not: 501');
  });

  it('come-back-applied-nothing fails when a Retry-After status may have applied the resume', () => {
    const result = invariant('come-back-applied-nothing', (r) => (r.mayHaveApplied.statuses = [...r.mayHaveApplied.statuses, 503]));
    expect(result).toMatchObject({ holds: false });
    expect(result.text).toContain('both: 503');
  });

  it('key-outlives-call fails when the key is dropped before a call can end', () => {
    expect(invariant('key-outlives-call', (r) => (r.idempotencyKey.retentionMs = r.attempts.maxTotalMs)).holds).toBe(true);
    expect(invariant('key-outlives-call', (r) => (r.idempotencyKey.retentionMs = r.attempts.maxTotalMs - 1)).holds).toBe(false);
  });

  it('backoff-within-retry-after-cap fails on a backoff cap above the Retry-After cap', () => {
    expect(invariant('backoff-within-retry-after-cap', (r) => (r.backoff.maxMs = r.retryAfter.maxMs + 1)).holds).toBe(false);
  });
});

describe("the decisions' numbers", () => {
  it('are all stated as the policies give them in the shipped spec', () => {
    const results = checkDecisionNumbers(retry, delivery, decisions);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ id: 'decision-numbers', holds: true });
    expect(decisionClaims(retry, delivery).length).toBeGreaterThan(20);
  });

  it('name for each claim the policy fields it comes from, and say which when one fails', () => {
    for (const claim of decisionClaims(retry, delivery)) {
      expect(claim.phrase.length, claim.decision).toBeGreaterThan(5);
      expect(claim.from, claim.phrase).toMatch(/^(x-retry-policy|x-delivery-policy) [a-zA-Z]|^the redelivery horizon/);
    }
    const d = structuredClone(delivery);
    d.dedupe.windowMs = 12 * DAY;
    const missed = checkDecisionNumbers(retry, d, decisions).find((r) => r.id === 'decision-number manual-redelivery');
    expect(missed?.text).toBe(
      'x-decisions manual-redelivery (chosen) does not say "dedupe window (12 d)", which x-delivery-policy dedupe.windowMs gives: write the policy\'s value in the prose.',
    );
  });

  it.each([
    [
      'a longer window',
      (_r: ClaimedRetryFields, d: ClaimedDeliveryFields) => (d.dedupe.windowMs = 12 * DAY),
      ['dedupe-window', 'webhook-outbox', 'manual-redelivery'],
    ],
    ['a status no longer retried', (r: ClaimedRetryFields) => (r.retryableStatuses = [429, 503]), ['resume-retry-policy', 'store-unavailable']],
    [
      'a shorter answer deadline',
      (_r: ClaimedRetryFields, d: ClaimedDeliveryFields) => (d.answerDeadlineMs = 3000),
      ['webhook-ack', 'webhook-outbox', 'dedupe-window'],
    ],
    ['one attempt more', (r: ClaimedRetryFields) => (r.attempts.max = 4), ['resume-retry-policy']],
    ['a longer Retry-After cap', (r: ClaimedRetryFields) => (r.retryAfter.maxMs = 20_000), ['resume-retry-policy', 'rate-limit']],
    ['another schedule', (_r: ClaimedRetryFields, d: ClaimedDeliveryFields) => (d.retry.scheduleMs = [0, 5000]), ['webhook-retry', 'dedupe-window']],
    [
      'a larger held backlog',
      (_r: ClaimedRetryFields, d: ClaimedDeliveryFields) => (d.endpointHealth!.maxHeldEvents = 200_000),
      ['manual-redelivery', 'dedupe-window'],
    ],
    ['a shorter key retention', (r: ClaimedRetryFields) => (r.idempotencyKey.retentionMs = 3_600_000), ['idempotency-key']],
    [
      'another signature tolerance',
      (_r: ClaimedRetryFields, d: ClaimedDeliveryFields) => (d.signature.toleranceMs = 600_000),
      ['webhook-signing', 'webhook-outbox'],
    ],
  ])('fail on %s the prose does not say, naming the decisions', (_name, change, named) => {
    const r = structuredClone(retry);
    const d = structuredClone(delivery);
    change(r, d);
    const results = checkDecisionNumbers(r, d, decisions);
    expect(results.at(-1)).toMatchObject({ id: 'decision-numbers', holds: false });
    const failing = new Set(results.filter((x) => !x.holds && x.id !== 'decision-numbers').map((x) => x.id.replace('decision-number ', '')));
    expect([...failing].sort()).toEqual([...named].sort());
  });
});
