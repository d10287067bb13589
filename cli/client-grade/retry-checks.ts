/**
 * The retry checks: a 503 and a 429 with Retry-After, a Retry-After beyond the policy's cap, a
 * reset connection and a 500, each met by a call's first attempt. Whether a retry is due, and
 * how long it must wait, is the policy's.
 */
import type { Verdict } from '../grade-report.js';
import { retryable, scenariosOf, settledAttempts, type CheckContext } from './grade-observations.js';
import { describeAttempts, type Attempt } from './observations.js';
import type { Scenario } from './scenarios.js';

/** Timer and clock rounding allowed on a wait, in ms. */
const WAIT_TOLERANCE_MS = 20;

/** What the first attempt met, for people. */
const met = (first: Attempt) => (first.status === undefined ? 'a reset connection' : `a ${first.status}`);

/** The Retry-After of `first` as the policy reads it (on its statuses only), and whether it asks for more than the policy's cap. */
function askedWait(ctx: CheckContext, first: Attempt): { askedMs: number; aboveMax: boolean } | undefined {
  const statuses: readonly number[] = ctx.policy.retryAfter.statuses;
  if (first.retryAfterSeconds === undefined || first.status === undefined || !statuses.includes(first.status)) return undefined;
  const askedMs = first.retryAfterSeconds * 1000;
  return { askedMs, aboveMax: askedMs > ctx.policy.retryAfter.maxMs };
}

/** The call of `scenario` judged against its first answer: retried when the policy retries it, never before the Retry-After floor, not at all when it asks beyond the cap and the policy gives up. */
function judgeRetry(ctx: CheckContext, scenario: Scenario | undefined): Verdict {
  if (!scenario) return { grade: 'not-observable', evidence: 'no scenario of this rule in this run.' };
  const attempts = settledAttempts(ctx, scenario);
  if (!Array.isArray(attempts)) return attempts;
  const [first, second] = attempts as [Attempt, ...Attempt[]];
  const seen = `${scenario.sessionId}: ${describeAttempts(attempts)}`;
  const due = retryable(ctx.policy, first);
  const asked = askedWait(ctx, first);
  const aboveMax: string = ctx.policy.retryAfter.aboveMax;
  const givesUp = asked?.aboveMax === true && aboveMax === 'giveUp';
  const cap = `the retry policy's cap of ${ctx.policy.retryAfter.maxMs} ms`;
  if (!second) {
    if (!due) return { grade: 'pass', evidence: `${seen}; the retry policy does not retry ${met(first)}: reported.` };
    if (givesUp) return { grade: 'pass', evidence: `${seen}; Retry-After asked for more than ${cap}: reported, not retried.` };
    return { grade: 'fail', evidence: `${seen}: not retried, although the retry policy retries ${met(first)}.` };
  }
  if (!due) return { grade: 'fail', evidence: `${seen}: retried, although the retry policy reports ${met(first)} without retrying.` };
  if (givesUp) return { grade: 'fail', evidence: `${seen}: retried, although Retry-After asked for more than ${cap}, beyond which the policy gives up and reports.` };
  const waited = second.receivedAt - (first.endedAt ?? first.receivedAt);
  const floor = asked === undefined ? 0 : asked.aboveMax ? ctx.policy.retryAfter.maxMs : asked.askedMs;
  if (waited + WAIT_TOLERANCE_MS < floor) {
    return { grade: 'fail', evidence: `${seen}: retried after ${Math.round(waited)} ms, sooner than the ${floor} ms the answer asked for.` };
  }
  return { grade: 'pass', evidence: seen };
}

/** The 503 with Retry-After. */
export const checkRetry503 = (ctx: CheckContext) => judgeRetry(ctx, scenariosOf(ctx, 'retry-503')[0]);
/** The 429 with Retry-After. */
export const checkRetry429 = (ctx: CheckContext) => judgeRetry(ctx, scenariosOf(ctx, 'retry-429')[0]);
/** The 429 whose Retry-After is beyond the policy's cap. */
export const checkRetryAfterCap = (ctx: CheckContext) => judgeRetry(ctx, scenariosOf(ctx, 'retry-after-cap')[0]);
/** The reset connection. */
export const checkRetryNetwork = (ctx: CheckContext) => judgeRetry(ctx, scenariosOf(ctx, 'retry-network')[0]);
/** The 500. */
export const checkRetry500 = (ctx: CheckContext) => judgeRetry(ctx, scenariosOf(ctx, 'retry-500')[0]);
