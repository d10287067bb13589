/**
 * The timeout check: an attempt that gets no answer is abandoned by the client's own deadline
 * (the grader resets it at the policy's attempt deadline plus a grace), then reported, or retried
 * with its Idempotency-Key; a client without a key does not retry it, since the resume may have
 * been applied (`mayHaveApplied.timedOutAttempts`).
 */
import type { Verdict } from '../grade-report.js';
import { keylessRule, scenariosOf, sentWithKey, type CheckContext } from './grade-observations.js';
import { attemptsOf, describeAttempts } from './observations.js';

/** The hung attempt closed by the client within the hang limit. */
export function checkTimeout(ctx: CheckContext): Verdict {
  const scenario = scenariosOf(ctx, 'timeout')[0];
  if (!scenario) return { grade: 'n/o', evidence: 'no scenario of this rule in this run.' };
  const attempts = attemptsOf(ctx.obs, scenario);
  const [hung] = attempts;
  if (!hung)
    return {
      grade: 'n/o',
      evidence: `no request resumed ${scenario.sessionId}: the client is to resume each id of SESSION_RESUME_SESSION_IDS once, in order.`,
    };
  const deadline = `the retry policy's attempt deadline is ${ctx.policy.attempts.attemptTimeoutMs} ms`;
  if (hung.abandonedBy === 'grader') {
    return {
      grade: 'fail',
      evidence: `${scenario.sessionId}: no answer for ${ctx.obs.hangLimitMs} ms and the client was still waiting (${deadline}); the grader reset the connection.`,
    };
  }
  if (hung.abandonedBy !== 'client') {
    return {
      grade: 'n/o',
      evidence: `${scenario.sessionId}: the run ended while the client still waited for the answer, before the grader's limit of ${ctx.obs.hangLimitMs} ms.`,
    };
  }
  const after = `${scenario.sessionId}: abandoned after ${Math.round((hung.endedAt as number) - hung.receivedAt)} ms (${deadline})`;
  if (attempts.length === 1) return { grade: 'pass', evidence: `${after}, then reported, not retried.` };
  if (!sentWithKey(attempts) && ctx.policy.mayHaveApplied.timedOutAttempts) {
    return {
      grade: 'fail',
      evidence: `${after}, then retried without an Idempotency-Key (${describeAttempts(attempts)}), although the resume may have been applied by an attempt that timed out: ${keylessRule(ctx.policy)}.`,
    };
  }
  return { grade: 'pass', evidence: `${after}, then retried: ${describeAttempts(attempts)}.` };
}
