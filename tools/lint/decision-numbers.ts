/**
 * The numbers and status lists the decisions' prose states, checked against the policies: each
 * claim is the phrase the prose must contain, written from the policy's values, so a number
 * changed in x-retry-policy or x-delivery-policy fails `npm run lint:spec` until the prose says it
 * too. (Decisions whose figures belong to the endpoint circuit, endpoint-health, are its owner's
 * to check.)
 */
import { circuitDelay } from './circuit-hold.js';
import { redeliveryHorizon, spellDuration, type DeliveryFields, type InvariantResult, type RetryFields } from './policy-invariants.js';

/** One x-decisions entry's prose. */
export interface DecisionText {
  id: string;
  chosen?: string;
  'client-tolerance'?: string;
}

/** The retry fields the claims read, beyond those of the invariants. */
export interface ClaimedRetryFields extends RetryFields {
  attempts: RetryFields['attempts'] & { max: number; attemptTimeoutMs: number };
  backoff: RetryFields['backoff'] & { baseMs: number; factor: number };
  withoutIdempotencyKey: { retries: string };
}

/** The delivery fields the claims read, beyond those of the invariants. */
export interface ClaimedDeliveryFields extends DeliveryFields {
  deliveredStatuses: readonly number[];
  signature: { toleranceMs: number };
}

/** A phrase a decision must contain, and the policy fields it comes from. */
export interface Claim {
  decision: string;
  part: 'chosen' | 'client-tolerance';
  phrase: string;
  from: string;
}

/** "a, b and c" (or "or"). */
function list(items: readonly (string | number)[], last: 'and' | 'or'): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} ${last} ${items.at(-1)}`;
}

function retryClaims(r: ClaimedRetryFields): Claim[] {
  const say = (phrase: string, from: string, part: Claim['part'] = 'chosen'): Claim => ({
    decision: 'resume-retry-policy',
    part,
    phrase,
    from: `x-retry-policy ${from}`,
  });
  const notApplied = r.retryableStatuses.filter((s) => !r.mayHaveApplied.statuses.includes(s));
  const serverErrors = r.retryableStatuses.filter((s) => s >= 500);
  return [
    say(`Retried, with the same Idempotency-Key on every attempt: ${r.retryableStatuses.join(', ')} and network failures`, 'retryableStatuses'),
    say(`the per-attempt timeout (${spellDuration(r.attempts.attemptTimeoutMs)})`, 'attempts.attemptTimeoutMs'),
    say(`Retry-After on ${list(r.retryAfter.statuses, 'and')} is a floor`, 'retryAfter.statuses'),
    say(`above the cap (${spellDuration(r.retryAfter.maxMs)})`, 'retryAfter.maxMs'),
    say(`min(${spellDuration(r.backoff.maxMs)}, ${spellDuration(r.backoff.baseMs)} × ${r.backoff.factor}^(n−1))`, 'backoff'),
    say(`At most ${r.attempts.max} attempts, so a call ends within ${spellDuration(r.attempts.maxTotalMs)}`, 'attempts.max, attempts.maxTotalMs'),
    say(`a ${list(r.mayHaveApplied.statuses, 'or')}, a network failure after the request was sent`, 'mayHaveApplied'),
    say(
      `(withoutIdempotencyKey.retries: ${r.withoutIdempotencyKey.retries}): ${notApplied.join(', ')} and a network failure before the request was sent`,
      'withoutIdempotencyKey, mayHaveApplied',
      'client-tolerance',
    ),
    {
      decision: 'idempotency-key',
      part: 'chosen',
      phrase: `for IDEMPOTENCY_TTL seconds (${spellDuration(r.idempotencyKey.retentionMs)} by default)`,
      from: 'x-retry-policy idempotencyKey.retentionMs',
    },
    {
      decision: 'rate-limit',
      part: 'client-tolerance',
      phrase: `(retryAfter.maxMs, ${spellDuration(r.retryAfter.maxMs)})`,
      from: 'x-retry-policy retryAfter.maxMs',
    },
    { decision: 'store-unavailable', part: 'client-tolerance', phrase: `${list(serverErrors, 'and')} are retried`, from: 'x-retry-policy retryableStatuses' },
  ];
}

function deliveryClaims(d: ClaimedDeliveryFields): Claim[] {
  const from = (field: string) => `x-delivery-policy ${field}`;
  const schedule = d.retry.scheduleMs.map((ms) => (ms === 0 ? 'immediately' : spellDuration(ms)));
  const horizon = redeliveryHorizon(d);
  const window = spellDuration(d.dedupe.windowMs);
  const claims: Claim[] = [
    {
      decision: 'webhook-ack',
      part: 'chosen',
      phrase: `Only a ${list(d.deliveredStatuses, 'or')} within ${spellDuration(d.answerDeadlineMs)} counts as delivered`,
      from: from('deliveredStatuses, answerDeadlineMs'),
    },
    { decision: 'webhook-retry', part: 'chosen', phrase: `(${schedule.join(', ')}: ${schedule.length} attempts)`, from: from('retry.scheduleMs') },
    {
      decision: 'webhook-retry',
      part: 'chosen',
      phrase: `a ${list(d.retryAfter.statuses, 'or')} with Retry-After waits at least what it asks (at most ${spellDuration(d.retryAfter.maxMs)})`,
      from: from('retryAfter'),
    },
    { decision: 'webhook-outbox', part: 'chosen', phrase: `the ${spellDuration(d.answerDeadlineMs)} answer deadline`, from: from('answerDeadlineMs') },
    { decision: 'webhook-outbox', part: 'chosen', phrase: `capped at ${spellDuration(d.retryAfter.maxMs)}`, from: from('retryAfter.maxMs') },
    { decision: 'webhook-outbox', part: 'chosen', phrase: `its ${window} window`, from: from('dedupe.windowMs') },
    {
      decision: 'webhook-outbox',
      part: 'chosen',
      phrase: `the ${spellDuration(d.signature.toleranceMs)} signature tolerance`,
      from: from('signature.toleranceMs'),
    },
    {
      decision: 'webhook-signing',
      part: 'chosen',
      phrase: `a timestamp more than ${spellDuration(d.signature.toleranceMs)} off`,
      from: from('signature.toleranceMs'),
    },
    { decision: 'dedupe-window', part: 'chosen', phrase: `(x-delivery-policy dedupe.windowMs) is ${window}`, from: from('dedupe.windowMs') },
    {
      decision: 'dedupe-window',
      part: 'chosen',
      phrase: `${horizon.waits} waits of the schedule, each stretched to a Retry-After of up to ${spellDuration(d.retryAfter.maxMs)}`,
      from: from('retry.scheduleMs, retryAfter.maxMs'),
    },
    {
      decision: 'dedupe-window',
      part: 'chosen',
      phrase: `an answer deadline of ${spellDuration(d.answerDeadlineMs)} per attempt`,
      from: from('answerDeadlineMs'),
    },
    {
      decision: 'dedupe-window',
      part: 'chosen',
      phrase: `${spellDuration(horizon.totalMs)} in all`,
      from: 'the redelivery horizon (tools/lint/policy-invariants.ts)',
    },
    { decision: 'manual-redelivery', part: 'chosen', phrase: `dedupe window (${window})`, from: from('dedupe.windowMs') },
  ];
  if (d.endpointHealth) {
    const circuit = circuitDelay(d.endpointHealth, d.answerDeadlineMs);
    claims.push(
      {
        decision: 'dedupe-window',
        part: 'chosen',
        phrase: `one hold while the endpoint's circuit is open, up to ${spellDuration(circuit.holdMs)}; the drain of the longest backlog after it, ${spellDuration(circuit.drainMs)}`,
        from: from('endpointHealth (tools/lint/circuit-hold.ts)'),
      },
      {
        decision: 'dedupe-window',
        part: 'chosen',
        phrase: `each further hold adds up to ${spellDuration(circuit.holdMs)}, at most ${Math.max(horizon.waits - 1, 0)} more`,
        from: from('endpointHealth, retry.scheduleMs'),
      },
      {
        decision: 'manual-redelivery',
        part: 'chosen',
        phrase: `at most ${d.endpointHealth.maxHeldEvents.toLocaleString('en-US')} events`,
        from: from('endpointHealth.maxHeldEvents'),
      },
    );
  }
  return claims;
}

/** Every claim of the decisions' prose, from the two policies' values. */
export function decisionClaims(retry: ClaimedRetryFields, delivery: ClaimedDeliveryFields): Claim[] {
  return [...retryClaims(retry), ...deliveryClaims(delivery)];
}

/** One result per claim the prose misses, then one for all of them. */
export function checkDecisionNumbers(retry: ClaimedRetryFields, delivery: ClaimedDeliveryFields, decisions: readonly DecisionText[]): InvariantResult[] {
  const claims = decisionClaims(retry, delivery);
  const byId = new Map(decisions.map((d) => [d.id, d]));
  const missed = claims.filter((c) => !(byId.get(c.decision)?.[c.part] ?? '').includes(c.phrase));
  const results: InvariantResult[] = missed.map((c) => ({
    id: `decision-number ${c.decision}`,
    holds: false,
    text: `x-decisions ${c.decision} (${c.part}) does not say "${c.phrase}", which ${c.from} gives: write the policy's value in the prose.`,
  }));
  results.push({
    id: 'decision-numbers',
    holds: missed.length === 0,
    text: `The decisions' prose states the policies' numbers: ${claims.length - missed.length} of ${claims.length} phrases written from x-retry-policy and x-delivery-policy are found as written.`,
  });
  return results;
}
