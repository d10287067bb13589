/**
 * The timeout check: an attempt that gets no answer is abandoned by the client's own deadline
 * (the grader resets it at the policy's attempt deadline plus a grace), then retried or reported.
 */
import type { Verdict } from '../grade-report.js';
import { scenariosOf, type CheckContext } from './grade-observations.js';
import { attemptsOf, describeAttempts, type Attempt } from './observations.js';

/** The hung attempt closed by the client within the hang limit. */
export function checkTimeout(ctx: CheckContext): Verdict {
  const scenario = scenariosOf(ctx, 'timeout')[0];
  if (!scenario) return { grade: 'not-observable', evidence: 'no scenario of this rule in this run.' };
  const attempts = attemptsOf(ctx.obs, scenario);
  const hung = attempts[0] as Attempt | undefined;
  if (!hung) return { grade: 'not-observable', evidence: `no request resumed ${scenario.sessionId}: the client is to resume each id of SESSION_RESUME_SESSION_IDS once, in order.` };
  const deadline = `the retry policy's attempt deadline is ${ctx.policy.attempts.attemptTimeoutMs} ms`;
  if (hung.abandonedBy === 'grader') {
    return { grade: 'fail', evidence: `${scenario.sessionId}: no answer for ${ctx.obs.hangLimitMs} ms and the client was still waiting (${deadline}); the grader reset the connection.` };
  }
  if (hung.abandonedBy !== 'client' || hung.endedAt === undefined) {
    return { grade: 'not-observable', evidence: `${scenario.sessionId}: the run ended while the client still waited for the answer, before the grader's limit of ${ctx.obs.hangLimitMs} ms.` };
  }
  const after = `${scenario.sessionId}: abandoned after ${Math.round(hung.endedAt - hung.receivedAt)} ms (${deadline})`;
  return { grade: 'pass', evidence: attempts.length > 1 ? `${after}, then retried: ${describeAttempts(attempts)}.` : `${after}, then reported, not retried.` };
}
