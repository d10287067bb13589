/**
 * What every check of `client grade` shares: the observations, the policy they are judged by,
 * the verdicts for a call that never came or did not end in time, and whether a failure is to
 * be retried by a client with an Idempotency-Key and by one without.
 */
import type { ResumeRetryPolicy } from '@session-resume-api/runtime/behaviour';
import type { Verdict } from '../grade-report.js';
import { attemptsOf, callSettled, type Attempt, type Observations } from './observations.js';
import type { Scenario } from './scenarios.js';

/** What a check reads. */
export interface CheckContext {
  obs: Observations;
  policy: ResumeRetryPolicy;
}

/** A scenario's attempts, or the verdict when they cannot be judged: never called, or unfinished when the run ended. */
export function settledAttempts(ctx: CheckContext, scenario: Scenario): Attempt[] | Verdict {
  const attempts = attemptsOf(ctx.obs, scenario);
  if (attempts.length === 0) {
    return {
      grade: 'n/o',
      evidence: `no request resumed ${scenario.sessionId}: the client is to resume each id of SESSION_RESUME_SESSION_IDS once, in order.`,
    };
  }
  if (!callSettled(ctx.obs, scenario)) {
    return { grade: 'n/o', evidence: `the run ended while ${scenario.sessionId} could still be retried, after ${attempts.length} attempt(s).` };
  }
  return attempts;
}

/** The scenarios of one rule, in order. */
export function scenariosOf(ctx: CheckContext, rule: Scenario['rule']): Scenario[] {
  return ctx.obs.scenarios.filter((s) => s.rule === rule);
}

/** A valid key: 1 to 255 printable ASCII characters (an RFC 8941 sf-string's characters). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

/** The key of an attempt when it carried exactly one valid key. */
export function keyOf(attempt: Attempt): string | undefined {
  const [key, ...more] = attempt.idempotencyKeys;
  // Stryker disable next-line StringLiteral: with no key at all, whatever the fallback, undefined is returned
  return more.length === 0 && VALID_KEY.test(key ?? '') ? key : undefined;
}

/** Whether a call is judged as one with an Idempotency-Key: its first attempt carried one. */
export const sentWithKey = (attempts: readonly Attempt[]): boolean => attempts[0] !== undefined && keyOf(attempts[0]) !== undefined;

/** Whether a retry is due after what `attempt` met, and the rule that says so, for people. */
export interface RetryDue {
  due: boolean;
  /** The rule, as a clause: "the retry policy retries a 503". */
  rule: string;
}

/** What an attempt met, for people: "a 503", "a connection lost after the request was sent". */
export const metBy = (attempt: Attempt): string => (attempt.status === undefined ? 'a connection lost after the request was sent' : `a ${attempt.status}`);

/** The failures a client without a key retries: the retryable statuses after which the resume was not applied. */
function keylessStatuses(policy: ResumeRetryPolicy): number[] {
  return policy.retryableStatuses.filter((status) => !policy.mayHaveApplied.statuses.includes(status));
}

/** The rule a client without a key keeps, as a clause. */
export function keylessRule(policy: ResumeRetryPolicy): string {
  const statuses = keylessStatuses(policy).join(', ');
  return `a client that sends no Idempotency-Key retries only failures after which the resume was not applied (${statuses || 'none of the statuses'}, a connection refused before the request was sent)`;
}

/**
 * Whether the policy retries what `attempt` met (a status, or a connection the grader ended after
 * reading the whole request), for a call sent with a key or without one: without a key, only the
 * failures after which the resume was surely not applied (`withoutIdempotencyKey.retries`).
 */
export function retryDue(policy: ResumeRetryPolicy, attempt: Attempt, withKey: boolean): RetryDue {
  const what = metBy(attempt);
  const network = attempt.status === undefined;
  const retryable = network ? policy.networkFailures === 'retry' : policy.retryableStatuses.includes(attempt.status as number);
  if (!retryable) return { due: false, rule: `the retry policy reports ${what} without retrying` };
  // withoutIdempotencyKey.retries is `notApplied` (the spec's lint allows no other value).
  if (withKey) return { due: true, rule: `the retry policy retries ${what} with the same Idempotency-Key` };
  const mayHaveApplied = network
    ? policy.mayHaveApplied.networkFailures.includes('afterRequestSent')
    : policy.mayHaveApplied.statuses.includes(attempt.status as number);
  if (mayHaveApplied)
    return { due: false, rule: `the call was sent without an Idempotency-Key and, after ${what}, the resume may have been applied: ${keylessRule(policy)}` };
  return { due: true, rule: `the retry policy retries ${what}, with or without an Idempotency-Key` };
}
