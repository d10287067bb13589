/**
 * The Idempotency-Key checks: a call sent with a key carries one valid key on each of its
 * attempts, the same on each, and never another call's; a call sent without one (allowed when
 * the policy only recommends the key) carries none on any attempt. A resume applied whose answer
 * was lost ends as `resumed` on the retry with the key (the recorded answer); without a key it
 * is reported, since a retry could not tell.
 */
import type { Verdict } from '../grade-report.js';
import { keylessRule, keyOf, retryDue, scenariosOf, sentWithKey, settledAttempts, type CheckContext } from './grade-observations.js';
import { attemptsOf, describeAttempts, type Attempt } from './observations.js';
import type { Scenario } from './scenarios.js';

/** The session id of an attempt of a call (every such attempt has its scenario). */
const idOf = (attempt: Attempt) => (attempt.scenario as Scenario).sessionId;

/** An attempt named for people: "sess_grade_503 attempt 2". */
const named = (attempt: Attempt) => `${idOf(attempt)} attempt ${attempt.number}`;

/** The first problem of the keys on one call's attempts: a key not valid, or the key changed or dropped between attempts. */
function keyProblem(call: readonly Attempt[], required: boolean): string | undefined {
  const invalid = call.find((a) => a.idempotencyKeys.length > 0 && keyOf(a) === undefined);
  if (invalid) return `${named(invalid)} carried no single valid Idempotency-Key (1 to 255 printable ASCII characters)`;
  const first = call[0] as Attempt;
  if (required && keyOf(first) === undefined) return `${named(first)} carried no Idempotency-Key, which the retry policy requires`;
  const keys = new Set(call.map(keyOf));
  if (keys.size > 1) return `the key changed between the attempts of ${idOf(first)} (${call.length} attempts, ${keys.size} keys, a missing one counted)`;
  return undefined;
}

/** Every call keyed (one valid key, the same on each attempt, not another call's) or, where the policy allows it, keyless on every attempt. */
export function checkIdempotencyKey(ctx: CheckContext): Verdict {
  const calls = ctx.obs.scenarios.map((s) => attemptsOf(ctx.obs, s)).filter((attempts) => attempts.length > 0);
  const attempts = calls.flat().length;
  if (attempts === 0) return { grade: 'n/o', evidence: 'no resume request arrived.' };
  const required = ctx.policy.idempotencyKey.requirement === 'required';
  for (const call of calls) {
    const problem = keyProblem(call, required);
    if (problem) return { grade: 'fail', evidence: `${problem}.` };
  }
  const keyed = calls.filter(sentWithKey);
  const owners = new Map<string, string>();
  for (const call of keyed) {
    const key = keyOf(call[0] as Attempt) as string;
    const other = owners.get(key);
    if (other) return { grade: 'fail', evidence: `${idOf(call[0] as Attempt)} was sent with the key of ${other}: each resume needs its own key.` };
    owners.set(key, idOf(call[0] as Attempt));
  }
  if (keyed.length === 0) {
    return {
      grade: 'pass',
      evidence: `no attempt of the ${calls.length} calls carried an Idempotency-Key, which the retry policy recommends and does not require; judged as a client without a key: ${keylessRule(ctx.policy)}.`,
    };
  }
  const without = calls.length - keyed.length;
  const retried = keyed.filter((call) => call.length > 1);
  const others = without === 0 ? '' : `; ${without} without a key on any attempt`;
  if (retried.length === 0) {
    return {
      grade: 'n/o',
      evidence: `each of ${keyed.length} calls with a key carried its own${others}, but none with a key was retried: whether a retry keeps it was not seen.`,
    };
  }
  return {
    grade: 'pass',
    evidence: `${keyed.length} calls, each with its own key; the ${retried.length} retried kept it on every attempt (${attempts} attempts in all)${others}.`,
  };
}

/** The resume applied, its answer lost (connection lost after the request was sent): with the key the retry gets the recorded `resumed`; without one it is reported. */
export function checkAnswerLost(ctx: CheckContext): Verdict {
  const scenario = scenariosOf(ctx, 'answer-lost')[0];
  if (!scenario) return { grade: 'n/o', evidence: 'no scenario of this rule in this run.' };
  const attempts = settledAttempts(ctx, scenario);
  if (!Array.isArray(attempts)) return attempts;
  const seen = `${scenario.sessionId}, applied and its answer lost: ${describeAttempts(attempts)}`;
  const { due, rule } = retryDue(ctx.policy, attempts[0] as Attempt, sentWithKey(attempts));
  if (!due) {
    return attempts.length === 1
      ? { grade: 'pass', evidence: `${seen}; ${rule}: reported, not retried.` }
      : { grade: 'fail', evidence: `${seen}: retried, although ${rule}.` };
  }
  const last = attempts.at(-1) as Attempt;
  if (attempts.length === 1) return { grade: 'fail', evidence: `${seen}: not retried, so the client never learned that the session resumed.` };
  if (last.status === 200) return { grade: 'pass', evidence: `${seen}: ended as resumed.` };
  if (attempts.some((a) => a.status === 409)) {
    return {
      grade: 'fail',
      evidence: `${seen}: the retry did not carry the key of the attempt that applied it, so it read as not_paused although this call resumed the session.`,
    };
  }
  return { grade: 'fail', evidence: `${seen}: did not end as resumed.` };
}
