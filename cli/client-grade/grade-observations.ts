/**
 * What every check of `client grade` shares: the observations, the policy they are judged by,
 * and the verdicts for a call that never came or did not end in time.
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
    return { grade: 'not-observable', evidence: `no request resumed ${scenario.sessionId}: the client is to resume each id of SESSION_RESUME_SESSION_IDS once, in order.` };
  }
  if (!callSettled(ctx.obs, scenario)) {
    return { grade: 'not-observable', evidence: `the run ended (time limit) while ${scenario.sessionId} could still be retried, after ${attempts.length} attempt(s).` };
  }
  return attempts;
}

/** The scenarios of one rule, in order. */
export function scenariosOf(ctx: CheckContext, rule: Scenario['rule']): Scenario[] {
  return ctx.obs.scenarios.filter((s) => s.rule === rule);
}

/** Whether the policy retries what `attempt` met: its status, or a request without an answer. */
export function retryable(policy: ResumeRetryPolicy, attempt: Attempt): boolean {
  return attempt.status === undefined ? policy.networkFailures === 'retry' : (policy.retryableStatuses as readonly number[]).includes(attempt.status);
}
