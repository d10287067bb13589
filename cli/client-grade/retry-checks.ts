/**
 * The retry checks: a 503 and a 429 with Retry-After, a Retry-After beyond the policy's cap, a
 * connection lost after the request was sent and a 500, each met by a call's first attempt.
 * Whether a retry is due is the policy's, for a call with an Idempotency-Key and for one without
 * (grade-observations.ts); how long it must wait is the answer's Retry-After, within the cap.
 */
import type { Verdict } from '../grade-report.js';
import { retryDue, scenariosOf, sentWithKey, settledAttempts, type CheckContext } from './grade-observations.js';
import { describeAttempts, type Attempt } from './observations.js';
import type { Scenario } from './scenarios.js';

/** Timer and clock rounding allowed on a wait, in ms. */
export const WAIT_TOLERANCE_MS = 20;

/** The Retry-After of `first` as the policy reads it (on its statuses only), and whether it asks for more than the policy's cap. */
function askedWait(ctx: CheckContext, first: Attempt): { askedMs: number; aboveMax: boolean } | undefined {
  const statuses: readonly number[] = ctx.policy.retryAfter.statuses;
  // Stryker disable next-line ConditionalExpression: without Retry-After the wait asked is NaN, which no comparison below takes for a floor or for more than the cap
  if (first.retryAfterSeconds === undefined || !statuses.includes(first.status as number)) return undefined;
  const askedMs = first.retryAfterSeconds * 1000;
  return { askedMs, aboveMax: askedMs > ctx.policy.retryAfter.maxMs };
}

/** The call of `scenario` judged against its first answer: retried when the policy retries it, never before the Retry-After floor, not at all when it asks beyond the cap and the policy gives up. */
function judgeRetry(ctx: CheckContext, scenario: Scenario | undefined): Verdict {
  if (!scenario) return { grade: 'n/o', evidence: 'no scenario of this rule in this run.' };
  const attempts = settledAttempts(ctx, scenario);
  if (!Array.isArray(attempts)) return attempts;
  const [first, second] = attempts as [Attempt, ...Attempt[]];
  const seen = `${scenario.sessionId}: ${describeAttempts(attempts)}`;
  const { due, rule } = retryDue(ctx.policy, first, sentWithKey(attempts));
  const asked = askedWait(ctx, first);
  const givesUp = asked?.aboveMax === true && ctx.policy.retryAfter.aboveMax === 'giveUp';
  const cap = `the retry policy's cap of ${ctx.policy.retryAfter.maxMs} ms`;
  if (!second) {
    if (!due) return { grade: 'pass', evidence: `${seen}; ${rule}: reported, not retried.` };
    if (givesUp) return { grade: 'pass', evidence: `${seen}; Retry-After asked for more than ${cap}: reported, not retried.` };
    return { grade: 'fail', evidence: `${seen}: not retried, although ${rule}.` };
  }
  if (!due) return { grade: 'fail', evidence: `${seen}: retried, although ${rule}.` };
  if (givesUp)
    return { grade: 'fail', evidence: `${seen}: retried, although Retry-After asked for more than ${cap}, beyond which the policy gives up and reports.` };
  const waited = second.receivedAt - (first.endedAt as number);
  const floor = asked === undefined ? 0 : Math.min(asked.askedMs, ctx.policy.retryAfter.maxMs);
  if (waited + WAIT_TOLERANCE_MS < floor) {
    return {
      grade: 'fail',
      evidence: `${seen}: retried after ${Math.round(waited)} ms, sooner than the ${floor} ms the answer asked for (Retry-After is a floor).`,
    };
  }
  return { grade: 'pass', evidence: `${seen}; ${rule}${floor > 0 ? `, not before Retry-After` : ''}.` };
}

/** The 503 with Retry-After. */
export const checkRetry503 = (ctx: CheckContext) => judgeRetry(ctx, scenariosOf(ctx, 'retry-503')[0]);
/** The 429 with Retry-After. */
export const checkRetry429 = (ctx: CheckContext) => judgeRetry(ctx, scenariosOf(ctx, 'retry-429')[0]);
/** The 429 whose Retry-After is beyond the policy's cap. */
export const checkRetryAfterCap = (ctx: CheckContext) => judgeRetry(ctx, scenariosOf(ctx, 'retry-after-cap')[0]);
/** The connection lost after the request was sent. */
export const checkRetryNetwork = (ctx: CheckContext) => judgeRetry(ctx, scenariosOf(ctx, 'retry-network')[0]);
/** The 500. */
export const checkRetry500 = (ctx: CheckContext) => judgeRetry(ctx, scenariosOf(ctx, 'retry-500')[0]);
