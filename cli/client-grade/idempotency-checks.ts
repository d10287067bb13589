/**
 * The Idempotency-Key checks: one key per resume call, the same on each of its attempts and
 * never another call's; and a resume applied whose answer was lost ends as `resumed` on the
 * retry (the recorded answer), not as `not_paused`.
 */
import type { Verdict } from '../grade-report.js';
import { scenariosOf, settledAttempts, type CheckContext } from './grade-observations.js';
import { attemptsOf, describeAttempts, type Attempt } from './observations.js';

/** A valid key: 1 to 255 printable ASCII characters (an RFC 8941 sf-string's characters). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

/** The key of an attempt when it carried exactly one valid key. */
const keyOf = (attempt: Attempt) => (attempt.idempotencyKeys.length === 1 && VALID_KEY.test(attempt.idempotencyKeys[0] as string) ? attempt.idempotencyKeys[0] : undefined);

/** An attempt named for people: "sess_grade_503 attempt 2". */
const named = (attempt: Attempt) => `${attempt.scenario?.sessionId} attempt ${attempt.number}`;

/** Every attempt carries one valid key, the same on each attempt of a call, and no two calls share one. */
export function checkIdempotencyKey(ctx: CheckContext): Verdict {
  const calls = ctx.obs.scenarios.map((s) => attemptsOf(ctx.obs, s)).filter((attempts) => attempts.length > 0);
  const attempts = calls.flat();
  if (attempts.length === 0) return { grade: 'not-observable', evidence: 'no resume request arrived.' };
  const keyless = attempts.filter((a) => keyOf(a) === undefined);
  if (keyless.length > 0) {
    const how = keyless[0]?.idempotencyKeys.length === 0 ? 'no Idempotency-Key' : 'no single valid Idempotency-Key (1 to 255 printable ASCII characters)';
    return { grade: 'fail', evidence: `${keyless.length} of ${attempts.length} attempts carried ${how}, the first: ${named(keyless[0] as Attempt)}.` };
  }
  const changed = calls.find((call) => new Set(call.map(keyOf)).size > 1);
  if (changed) return { grade: 'fail', evidence: `the key changed between the attempts of ${changed[0]?.scenario?.sessionId} (${changed.length} attempts, ${new Set(changed.map(keyOf)).size} keys).` };
  const owners = new Map<string, string>();
  for (const call of calls) {
    const key = keyOf(call[0] as Attempt) as string;
    const other = owners.get(key);
    if (other) return { grade: 'fail', evidence: `${call[0]?.scenario?.sessionId} was sent with the key of ${other}: each resume needs its own key.` };
    owners.set(key, call[0]?.scenario?.sessionId as string);
  }
  const retried = calls.filter((call) => call.length > 1);
  if (retried.length === 0) {
    return { grade: 'not-observable', evidence: `each of ${calls.length} calls carried its own key, but none was retried: whether a retry keeps it was not seen.` };
  }
  return { grade: 'pass', evidence: `${calls.length} calls, each with its own key; the ${retried.length} retried kept it on every attempt (${attempts.length} attempts in all).` };
}

/** The resume applied, its answer lost (connection reset): the retry gets the recorded `resumed`. */
export function checkAnswerLost(ctx: CheckContext): Verdict {
  const scenario = scenariosOf(ctx, 'answer-lost')[0];
  if (!scenario) return { grade: 'not-observable', evidence: 'no scenario of this rule in this run.' };
  const attempts = settledAttempts(ctx, scenario);
  if (!Array.isArray(attempts)) return attempts;
  const seen = `${scenario.sessionId}, applied and its answer lost: ${describeAttempts(attempts)}`;
  const last = attempts.at(-1) as Attempt;
  if (attempts.length === 1) return { grade: 'fail', evidence: `${seen}: not retried, so the client never learned that the session resumed.` };
  if (last.status === 200) return { grade: 'pass', evidence: `${seen}: ended as resumed.` };
  if (attempts.some((a) => a.status === 409)) {
    return { grade: 'fail', evidence: `${seen}: the retry did not carry the key of the attempt that applied it, so it read as not_paused although this call resumed the session.` };
  }
  return { grade: 'fail', evidence: `${seen}: did not end as resumed.` };
}
