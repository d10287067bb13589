/**
 * The outcome checks: answers that are the caller's to handle, not to retry (400, 401, 404,
 * 422, and 409 not_paused), each sent once.
 */
import type { Verdict } from '../grade-report.js';
import type { ClientRuleId } from './client-rules.js';
import { scenariosOf, settledAttempts, type CheckContext } from './grade-observations.js';
import type { Attempt } from './observations.js';

/** Each scenario of `rule` called exactly once. */
function judgeOnce(ctx: CheckContext, rule: ClientRuleId): Verdict {
  const lines: string[] = [];
  const retried: string[] = [];
  for (const scenario of scenariosOf(ctx, rule)) {
    const attempts = settledAttempts(ctx, scenario);
    if (!Array.isArray(attempts)) return attempts;
    const status = (attempts[0] as Attempt).status;
    // A passing call has one attempt: the line is only shown then.
    lines.push(`${status}: 1 attempt`);
    if (attempts.length > 1) retried.push(`${scenario.sessionId} (${status}) was sent ${attempts.length} times`);
  }
  if (lines.length === 0) return { grade: 'n/o', evidence: 'no scenario of this rule in this run.' };
  if (retried.length > 0) return { grade: 'fail', evidence: `${retried.join(', ')}: this answer is an outcome, not a failure to retry.` };
  return { grade: 'pass', evidence: `${lines.join(', ')}; reported, not retried.` };
}

/** 400, 401, 404, 422: one attempt each. */
export const checkNoRetry4xx = (ctx: CheckContext) => judgeOnce(ctx, 'no-retry-4xx');

/** 409 not_paused: one attempt. */
export const checkNotPaused = (ctx: CheckContext) => judgeOnce(ctx, 'not-paused');
