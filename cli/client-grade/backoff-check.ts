/**
 * The back-off check: calls that meet a 503 without Retry-After on every attempt. Each stops
 * within the policy's attempts, and the waits before the same retry differ from call to call
 * (jitter), so that clients failing together do not retry together.
 */
import type { Verdict } from '../grade-report.js';
import { scenariosOf, settledAttempts, type CheckContext } from './grade-observations.js';
import { attemptsOf, retryDelays, type Attempt } from './observations.js';

/** Waits closer than this (or than a tenth of the longest) are one fixed delay plus timer noise, in ms. */
const JITTER_MIN_SPREAD_MS = 20;

/** The shortest and longest wait before each retry, over the calls: "retry 1: 12–230 ms". */
function spreads(delays: readonly number[][]): { text: string; jittered: boolean; compared: boolean } {
  const parts: string[] = [];
  let jittered = false;
  let compared = false;
  for (let retry = 0; ; retry++) {
    const waits = delays.map((d) => d[retry]).filter((w): w is number => w !== undefined);
    if (waits.length === 0) break;
    const [low, high] = [Math.round(Math.min(...waits)), Math.round(Math.max(...waits))];
    parts.push(`before retry ${retry + 1}: ${waits.length === 1 ? `${low} ms` : `${low}–${high} ms`}`);
    if (waits.length > 1) compared = true;
    if (waits.length > 1 && high - low > Math.max(JITTER_MIN_SPREAD_MS, high / 10)) jittered = true;
  }
  return { text: parts.join(', '), jittered, compared };
}

/** Bounded attempts and jittered waits over the back-off calls. */
export function checkBackoff(ctx: CheckContext): Verdict {
  const calls: Attempt[][] = [];
  for (const scenario of scenariosOf(ctx, 'backoff')) {
    const attempts = settledAttempts(ctx, scenario);
    if (!Array.isArray(attempts)) {
      const tried = attemptsOf(ctx.obs, scenario).length;
      return tried === 0 ? attempts : { grade: 'fail', evidence: `${scenario.sessionId}: still retrying a 503 after ${tried} attempts when the run ended.` };
    }
    if (attempts.length > ctx.policy.attempts.max) {
      return { grade: 'fail', evidence: `${scenario.sessionId}: ${attempts.length} attempts against a 503 on every one; the retry policy allows at most ${ctx.policy.attempts.max}.` };
    }
    calls.push(attempts);
  }
  const counts = calls.map((c) => c.length).join(', ');
  const { text, jittered, compared } = spreads(calls.map(retryDelays));
  const seen = `${calls.length} calls met a 503 without Retry-After on every attempt: ${counts} attempts (at most ${ctx.policy.attempts.max})`;
  if (!compared) return { grade: 'not-observable', evidence: `${seen}; fewer than two were retried, so their waits cannot be compared.` };
  if (!jittered) return { grade: 'fail', evidence: `${seen}; waits ${text}: the same waits on every call, no jitter.` };
  return { grade: 'pass', evidence: `${seen}; waits ${text}: jittered.` };
}
