/**
 * The back-off check: calls that meet a 503 without Retry-After on every attempt. Each stops
 * within the policy's attempts, and for each retry number n the waits before it, over the calls,
 * lie within the policy's bound min(maxMs, baseMs × factor^(n−1)) and are spread over it (full
 * jitter), so that clients failing together do not retry together, on the first retry as on
 * every later one.
 */
import type { ResumeRetryPolicy } from '@session-resume-api/runtime/behaviour';
import type { Verdict } from '../grade-report.js';
import { scenariosOf, settledAttempts, type CheckContext } from './grade-observations.js';
import { attemptsOf, retryDelays, type Attempt } from './observations.js';

/**
 * Timer slop and loopback latency allowed above a bound, in ms. A wait is measured from when the
 * grader began answering to the next request's arrival, so latency only lengthens it; the
 * longest wait may be one spike of a busy machine, so the bound is judged on the second longest.
 */
export const BOUND_TOLERANCE_MS = 100;

/**
 * The spread test: over m calls, the waits before retry n without their shortest and their
 * longest (which latency spikes may have moved) still span at least this fraction of the bound.
 * For full jitter (m waits uniform on [0, bound]) that span is Beta(m−3, 4)-distributed, so a
 * narrower one has probability P(Binomial(m, 0.3) ≥ m−3): 5.4 × 10⁻⁷ per retry number with
 * m = 20 (the default calls), 3.4 × 10⁻⁵ with m = 16 (the fewest judged). A fixed wait passes
 * only if latency alone spreads all but two of its waits over 30 % of the bound (75 ms before
 * retry 1, 150 ms before retry 2), on every retry number.
 */
export const SPREAD_FRACTION = 0.3;

/** Fewest waits before one retry number that the spread test judges. */
export const MIN_SPREAD_SAMPLES = 16;

/** The back-off bound before retry `n` (from 1), in ms. */
export function backoffBoundMs(policy: ResumeRetryPolicy, n: number): number {
  return Math.min(policy.backoff.maxMs, policy.backoff.baseMs * policy.backoff.factor ** (n - 1));
}

/** What the waits before one retry number show. */
interface RetryWaits {
  n: number;
  text: string;
  problem?: string;
  /** Judged for spread (no problem found, enough waits). */
  judged?: boolean;
}

/** The waits before retry `n`, over the calls, judged against its bound and for spread. */
function judgeRetryNumber(policy: ResumeRetryPolicy, n: number, waits: readonly number[]): RetryWaits {
  const bound = backoffBoundMs(policy, n);
  const sorted = [...waits].sort((a, b) => a - b);
  const text = `before retry ${n}: ${Math.round(sorted[0] as number)}–${Math.round(sorted.at(-1) as number)} ms of ${waits.length} calls (bound ${bound} ms)`;
  const longest = sorted.at(-2) ?? (sorted[0] as number);
  if (longest > bound + BOUND_TOLERANCE_MS)
    return { n, text, problem: `waits before retry ${n} of up to ${Math.round(longest)} ms (the longest but one), beyond its bound of ${bound} ms` };
  if (waits.length < MIN_SPREAD_SAMPLES) return { n, text, judged: false };
  const span = (sorted.at(-2) as number) - (sorted[1] as number);
  if (span < SPREAD_FRACTION * bound) {
    return {
      n,
      text,
      problem: `the waits before retry ${n}, the shortest and the longest set aside, all within ${Math.round(span)} ms of each other, not spread over 0–${bound} ms (no jitter)`,
    };
  }
  return { n, text, judged: true };
}

/** Each retry number's waits over `calls`, in order. */
function retryNumbers(policy: ResumeRetryPolicy, calls: readonly Attempt[][]): RetryWaits[] {
  const delays = calls.map(retryDelays);
  const numbers: RetryWaits[] = [];
  // Stryker disable next-line EqualityOperator: no call has more retries than the policy (backoffCalls fails those first)
  for (let n = 1; n < policy.attempts.max; n++) {
    const waits = delays.flatMap((d) => (d.length >= n ? [d[n - 1] as number] : []));
    if (waits.length > 0) numbers.push(judgeRetryNumber(policy, n, waits));
  }
  return numbers;
}

/** The calls' attempts, or the verdict that ends the check: a call not seen, unfinished, or over the policy's attempts. */
function backoffCalls(ctx: CheckContext): Attempt[][] | Verdict {
  const calls: Attempt[][] = [];
  for (const scenario of scenariosOf(ctx, 'backoff')) {
    const attempts = settledAttempts(ctx, scenario);
    if (!Array.isArray(attempts)) {
      const tried = attemptsOf(ctx.obs, scenario).length;
      return tried === 0 ? attempts : { grade: 'fail', evidence: `${scenario.sessionId}: still retrying a 503 after ${tried} attempts when the run ended.` };
    }
    if (attempts.length > ctx.policy.attempts.max) {
      return {
        grade: 'fail',
        evidence: `${scenario.sessionId}: ${attempts.length} attempts against a 503 on every one; the retry policy allows at most ${ctx.policy.attempts.max}.`,
      };
    }
    calls.push(attempts);
  }
  return calls;
}

/** Bounded attempts, and per retry number waits within the bound and spread over it. */
export function checkBackoff(ctx: CheckContext): Verdict {
  const calls = backoffCalls(ctx);
  if (!Array.isArray(calls)) return calls;
  if (calls.length === 0) return { grade: 'n/o', evidence: 'no scenario of this rule in this run.' };
  const numbers = retryNumbers(ctx.policy, calls);
  const seen = `${calls.length} calls met a 503 without Retry-After on every attempt: ${calls.map((c) => c.length).join(', ')} attempts (at most ${ctx.policy.attempts.max}); waits ${numbers.map((r) => r.text).join(', ') || 'none'}`;
  const problem = numbers.find((r) => r.problem !== undefined);
  if (problem) return { grade: 'fail', evidence: `${seen}: ${problem.problem}.` };
  if (!numbers.some((r) => r.judged)) {
    return { grade: 'n/o', evidence: `${seen}; fewer than ${MIN_SPREAD_SAMPLES} calls were retried, so their spread cannot be judged.` };
  }
  const unjudged = numbers.filter((r) => !r.judged).map((r) => r.n);
  return {
    grade: 'pass',
    evidence: `${seen}: within the bounds and spread (full jitter)${unjudged.length > 0 ? `; retry ${unjudged.join(', ')} seen in fewer than ${MIN_SPREAD_SAMPLES} calls, not judged for spread` : ''}.`,
  };
}
