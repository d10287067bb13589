/**
 * The rule modules of `client grade`, each judged on observations written here (no sockets):
 * every branch of every check with its whole evidence, so that a changed rule or message is
 * seen by the unit tier. The policy is the contract's x-retry-policy, or a variant of it where a
 * branch depends on a number or a setting.
 */
import { RESUME_RETRY_POLICY, type ResumeRetryPolicy } from '@session-resume-api/runtime/behaviour';
import { describe, expect, it } from 'vitest';
import { BOUND_TOLERANCE_MS, backoffBoundMs, checkBackoff } from '../../cli/client-grade/backoff-check.js';
import { keylessRule, keyOf, metBy, retryDue, sentWithKey, settledAttempts, type CheckContext } from '../../cli/client-grade/grade-observations.js';
import { checkAnswerLost, checkIdempotencyKey } from '../../cli/client-grade/idempotency-checks.js';
import type { Attempt, Observations, RunEnd } from '../../cli/client-grade/observations.js';
import { checkNoRetry4xx, checkNotPaused } from '../../cli/client-grade/outcome-checks.js';
import { checkRequest } from '../../cli/client-grade/request-check.js';
import { checkRetry429, checkRetry500, checkRetry503, checkRetryAfterCap, checkRetryNetwork } from '../../cli/client-grade/retry-checks.js';
import { createScenarios, type Scenario } from '../../cli/client-grade/scenarios.js';
import { checkTimeout } from '../../cli/client-grade/timeout-check.js';

const POLICY: ResumeRetryPolicy = RESUME_RETRY_POLICY;
const API_KEY = 'grade_key';
const scenarios = createScenarios({ unavailableRetryAfterSeconds: 3, rateLimitedRetryAfterSeconds: 4, backoffCalls: 20 });
const one = (rule: Scenario['rule']) => scenarios.find((s) => s.rule === rule) as Scenario;
const backoffScenarios = scenarios.filter((s) => s.rule === 'backoff');
const EXITED: RunEnd = { kind: 'exited', code: 0, signal: null };

/** One attempt: `wait` ms after the previous one ended (10 by default), answered at once unless `endedAt` is given. */
type Step = Partial<Attempt> & { wait?: number };
type Call = [Scenario, Step[]];

/** Observations of `calls` in order; each attempt carries its call's key unless it says otherwise, and meets a 503 unless it says otherwise. */
function observe(calls: Call[], extra: Partial<Observations> = {}): Observations {
  const attempts: Attempt[] = [];
  let clock = 0;
  for (const [scenario, steps] of calls) {
    steps.forEach(({ wait = 10, ...step }, i) => {
      const receivedAt = clock + wait;
      const attempt: Attempt = {
        seq: attempts.length + 1,
        method: 'POST',
        target: `/v1/sessions/${scenario.sessionId}/resume`,
        scenario,
        number: i + 1,
        authorization: [`Bearer ${API_KEY}`],
        idempotencyKeys: [`key-${scenario.sessionId}`],
        body: '',
        bodyBytes: 0,
        receivedAt,
        endedAt: receivedAt,
        fault: 'answer',
        status: 503,
        ...step,
      };
      attempts.push(attempt);
      clock = attempt.endedAt ?? receivedAt;
    });
  }
  return { scenarios, attempts, refused: 0, end: EXITED, apiKey: API_KEY, hangLimitMs: 12_000, ...extra };
}

const ctxOf = (obs: Observations, policy: ResumeRetryPolicy = POLICY): CheckContext => ({ obs, policy });
const KEYLESS: Step = { idempotencyKeys: [] };
const withPolicy = (change: (p: ResumeRetryPolicy) => Partial<ResumeRetryPolicy>): ResumeRetryPolicy => ({ ...POLICY, ...change(POLICY) });
const NONE: Observations = { ...observe([]), scenarios: [] };
const KEYLESS_RULE =
  'a client that sends no Idempotency-Key retries only failures after which the resume was not applied (429, 503, a connection refused before the request was sent)';

describe('grade-observations: settled calls, keys and the retry rule for calls with and without a key', () => {
  const s503 = one('retry-503');
  const later = one('retry-429');

  it('a call never made is n/o; one the run cut (time limit or Ctrl-C) without a later request is n/o; one followed by another id, or ended by the client, is settled', () => {
    expect(settledAttempts(ctxOf(observe([])), s503)).toEqual({
      grade: 'n/o',
      evidence: 'no request resumed sess_grade_503: the client is to resume each id of SESSION_RESUME_SESSION_IDS once, in order.',
    });
    const cut = 'the run ended while sess_grade_503 could still be retried, after 1 attempt(s).';
    for (const end of [
      { kind: 'time-limit', afterMs: 60_000 },
      { kind: 'stopped', signal: 'SIGINT' },
    ] as const) {
      expect(settledAttempts(ctxOf(observe([[s503, [{}]]], { end })), s503)).toEqual({ grade: 'n/o', evidence: cut });
      expect(
        settledAttempts(
          ctxOf(
            observe(
              [
                [s503, [{}]],
                [later, [{}]],
              ],
              { end },
            ),
          ),
          s503,
        ),
      ).toHaveLength(1);
      // A request to another id before the call's last attempt does not settle it.
      expect(
        settledAttempts(
          ctxOf(
            observe(
              [
                [later, [{}]],
                [s503, [{}]],
              ],
              { end },
            ),
          ),
          s503,
        ),
      ).toEqual({ grade: 'n/o', evidence: cut });
    }
    expect(settledAttempts(ctxOf(observe([[s503, [{}, {}]]])), s503)).toHaveLength(2);
  });

  it('a key is one value of 1 to 255 printable ASCII characters; a call is keyed by its first attempt', () => {
    const keys = (idempotencyKeys: string[]) => keyOf({ ...observe([[s503, [{ idempotencyKeys }]]]).attempts[0] } as Attempt);
    expect(keys(['k'])).toBe('k');
    expect(keys([' ~'])).toBe(' ~');
    expect(keys(['x'.repeat(255)])).toBe('x'.repeat(255));
    for (const bad of [[], [''], ['x'.repeat(256)], ['a', 'b'], ['caf\u00e9'], ['a\u007f'], ['a\u001f']])
      expect(keys(bad), JSON.stringify(bad)).toBeUndefined();
    expect(sentWithKey([])).toBe(false);
    expect(sentWithKey(observe([[s503, [{}, KEYLESS]]]).attempts)).toBe(true);
    expect(sentWithKey(observe([[s503, [KEYLESS, {}]]]).attempts)).toBe(false);
  });

  it('with a key every retryable status and lost connection is retried; without one, only what surely did not apply the resume', () => {
    const at = (step: Step) => observe([[s503, [step]]]).attempts[0] as Attempt;
    const lost = at({ status: undefined, fault: 'reset' });
    expect(metBy(lost)).toBe('a connection lost after the request was sent');
    expect(metBy(at({ status: 502 }))).toBe('a 502');
    expect(keylessRule(POLICY)).toBe(KEYLESS_RULE);
    expect(keylessRule(withPolicy((p) => ({ mayHaveApplied: { ...p.mayHaveApplied, statuses: p.retryableStatuses } })))).toMatch(
      /applied \(none of the statuses, a connection/,
    );
    for (const status of [429, 500, 502, 503, 504])
      expect(retryDue(POLICY, at({ status }), true)).toEqual({ due: true, rule: `the retry policy retries a ${status} with the same Idempotency-Key` });
    expect(retryDue(POLICY, lost, true)).toEqual({
      due: true,
      rule: 'the retry policy retries a connection lost after the request was sent with the same Idempotency-Key',
    });
    for (const status of [429, 503])
      expect(retryDue(POLICY, at({ status }), false)).toEqual({ due: true, rule: `the retry policy retries a ${status}, with or without an Idempotency-Key` });
    for (const status of [500, 502, 504]) {
      expect(retryDue(POLICY, at({ status }), false)).toEqual({
        due: false,
        rule: `the call was sent without an Idempotency-Key and, after a ${status}, the resume may have been applied: ${KEYLESS_RULE}`,
      });
    }
    expect(retryDue(POLICY, lost, false).due).toBe(false);
    const beforeOnly = withPolicy((p) => ({ mayHaveApplied: { ...p.mayHaveApplied, networkFailures: ['beforeRequestSent'] } }));
    expect(retryDue(beforeOnly, lost, false)).toEqual({
      due: true,
      rule: 'the retry policy retries a connection lost after the request was sent, with or without an Idempotency-Key',
    });
    for (const withKey of [true, false]) {
      expect(retryDue(POLICY, at({ status: 409 }), withKey)).toEqual({ due: false, rule: 'the retry policy reports a 409 without retrying' });
      expect(
        retryDue(
          withPolicy(() => ({ networkFailures: 'report' })),
          lost,
          withKey,
        ),
      ).toEqual({ due: false, rule: 'the retry policy reports a connection lost after the request was sent without retrying' });
    }
  });
});

describe('retry-checks: 503, 429, the Retry-After cap, a lost connection and a 500', () => {
  const s500 = one('retry-500');
  const reset = one('retry-network');
  const lost: Step = { status: undefined, fault: 'reset' };

  it('a keyless client that retries a 500 or a lost connection fails with the rule; one that reports them passes', () => {
    expect(
      checkRetry500(
        ctxOf(
          observe([
            [
              s500,
              [
                { ...KEYLESS, status: 500 },
                { ...KEYLESS, status: 200 },
              ],
            ],
          ]),
        ),
      ),
    ).toEqual({
      grade: 'fail',
      evidence: `sess_grade_500: 2 attempts: 500, 10 ms later 200: retried, although the call was sent without an Idempotency-Key and, after a 500, the resume may have been applied: ${KEYLESS_RULE}.`,
    });
    expect(checkRetry500(ctxOf(observe([[s500, [{ ...KEYLESS, status: 500 }]]])))).toEqual({
      grade: 'pass',
      evidence: `sess_grade_500: 1 attempt: 500; the call was sent without an Idempotency-Key and, after a 500, the resume may have been applied: ${KEYLESS_RULE}: reported, not retried.`,
    });
    expect(
      checkRetryNetwork(
        ctxOf(
          observe([
            [
              reset,
              [
                { ...KEYLESS, ...lost },
                { ...KEYLESS, status: 200 },
              ],
            ],
          ]),
        ),
      ).grade,
    ).toBe('fail');
    expect(checkRetryNetwork(ctxOf(observe([[reset, [{ ...KEYLESS, ...lost }]]]))).grade).toBe('pass');
  });

  it('a keyed client retries a 500 and a lost connection; not retrying them fails', () => {
    expect(checkRetry500(ctxOf(observe([[s500, [{ status: 500 }, { status: 200 }]]])))).toEqual({
      grade: 'pass',
      evidence: 'sess_grade_500: 2 attempts: 500, 10 ms later 200; the retry policy retries a 500 with the same Idempotency-Key.',
    });
    expect(checkRetry500(ctxOf(observe([[s500, [{ status: 500 }]]])))).toEqual({
      grade: 'fail',
      evidence: 'sess_grade_500: 1 attempt: 500: not retried, although the retry policy retries a 500 with the same Idempotency-Key.',
    });
    expect(checkRetryNetwork(ctxOf(observe([[reset, [lost, { status: 200, wait: 7 }]]])))).toEqual({
      grade: 'pass',
      evidence:
        'sess_grade_reset: 2 attempts: connection reset, 7 ms later 200; the retry policy retries a connection lost after the request was sent with the same Idempotency-Key.',
    });
  });

  it('a status the policy does not retry: reported passes, retried fails', () => {
    const notRetried = withPolicy(() => ({ retryableStatuses: [429, 502, 503, 504] }));
    expect(checkRetry500(ctxOf(observe([[s500, [{ status: 500 }]]]), notRetried))).toEqual({
      grade: 'pass',
      evidence: 'sess_grade_500: 1 attempt: 500; the retry policy reports a 500 without retrying: reported, not retried.',
    });
    expect(checkRetry500(ctxOf(observe([[s500, [{ status: 500 }, { status: 200 }]]]), notRetried))).toEqual({
      grade: 'fail',
      evidence: 'sess_grade_500: 2 attempts: 500, 10 ms later 200: retried, although the retry policy reports a 500 without retrying.',
    });
  });

  it('Retry-After is a floor, with or without a key: sooner (beyond a 20 ms tolerance) fails, at or after it passes', () => {
    const s503 = one('retry-503');
    const call = (wait: number, key: Step = {}): Observations =>
      observe([
        [
          s503,
          [
            { ...key, retryAfterSeconds: 3 },
            { ...key, status: 200, wait },
          ],
        ],
      ]);
    expect(checkRetry503(ctxOf(call(2979)))).toEqual({
      grade: 'fail',
      evidence:
        'sess_grade_503: 2 attempts: 503 (Retry-After: 3), 2979 ms later 200: retried after 2979 ms, sooner than the 3000 ms the answer asked for (Retry-After is a floor).',
    });
    expect(checkRetry503(ctxOf(call(2980)))).toEqual({
      grade: 'pass',
      evidence:
        'sess_grade_503: 2 attempts: 503 (Retry-After: 3), 2980 ms later 200; the retry policy retries a 503 with the same Idempotency-Key, not before Retry-After.',
    });
    for (const fixed of [0, 100, 250, 500, 1000, 2000]) expect(checkRetry503(ctxOf(call(fixed, KEYLESS))).grade, `${fixed} ms`).toBe('fail');
    expect(checkRetry503(ctxOf(call(3000, KEYLESS))).evidence).toMatch(
      /; the retry policy retries a 503, with or without an Idempotency-Key, not before Retry-After\.$/,
    );
    expect(
      checkRetry429(
        ctxOf(
          observe([
            [
              one('retry-429'),
              [
                { status: 429, retryAfterSeconds: 4 },
                { status: 200, wait: 3999 },
              ],
            ],
          ]),
        ),
      ).grade,
    ).toBe('pass');
    expect(checkRetry503(ctxOf(observe([[s503, [{ retryAfterSeconds: 3 }]]])))).toEqual({
      grade: 'fail',
      evidence: 'sess_grade_503: 1 attempt: 503 (Retry-After: 3): not retried, although the retry policy retries a 503 with the same Idempotency-Key.',
    });
  });

  it('Retry-After counts only on the policy\u2019s statuses, and up to the cap it is the floor', () => {
    expect(
      checkRetry500(
        ctxOf(
          observe([
            [
              s500,
              [
                { status: 500, retryAfterSeconds: 5 },
                { status: 200, wait: 0 },
              ],
            ],
          ]),
        ),
      ).grade,
    ).toBe('pass');
    const atCap = (wait: number) =>
      observe([
        [
          one('retry-after-cap'),
          [
            { status: 429, retryAfterSeconds: 10 },
            { status: 200, wait },
          ],
        ],
      ]);
    expect(checkRetryAfterCap(ctxOf(atCap(9979))).grade).toBe('fail');
    expect(checkRetryAfterCap(ctxOf(atCap(9980))).grade).toBe('pass');
  });

  it('beyond the cap: reported passes and a retry fails when the policy gives up; when it waits the cap, the cap is the floor', () => {
    const cap = one('retry-after-cap');
    const long = (...more: Step[]) => observe([[cap, [{ status: 429, retryAfterSeconds: 11 }, ...more]]]);
    expect(checkRetryAfterCap(ctxOf(long()))).toEqual({
      grade: 'pass',
      evidence:
        "sess_grade_429_long: 1 attempt: 429 (Retry-After: 11); Retry-After asked for more than the retry policy's cap of 10000 ms: reported, not retried.",
    });
    expect(checkRetryAfterCap(ctxOf(long({ status: 200, wait: 11_000 })))).toEqual({
      grade: 'fail',
      evidence:
        "sess_grade_429_long: 2 attempts: 429 (Retry-After: 11), 11000 ms later 200: retried, although Retry-After asked for more than the retry policy's cap of 10000 ms, beyond which the policy gives up and reports.",
    });
    const waitMax = withPolicy((p) => ({ retryAfter: { ...p.retryAfter, aboveMax: 'waitMax' } }));
    expect(checkRetryAfterCap(ctxOf(long(), waitMax)).grade).toBe('fail');
    expect(checkRetryAfterCap(ctxOf(long({ status: 200, wait: 9979 }), waitMax)).evidence).toMatch(/sooner than the 10000 ms the answer asked for/);
    expect(checkRetryAfterCap(ctxOf(long({ status: 200, wait: 9980 }), waitMax)).grade).toBe('pass');
  });

  it('a call not made or cut by the run is n/o; a run without the rule\u2019s scenario is n/o', () => {
    expect(checkRetry429(ctxOf(observe([])))).toEqual({
      grade: 'n/o',
      evidence: 'no request resumed sess_grade_429: the client is to resume each id of SESSION_RESUME_SESSION_IDS once, in order.',
    });
    for (const check of [checkRetry503, checkRetry429, checkRetryAfterCap, checkRetryNetwork, checkRetry500]) {
      expect(check(ctxOf(NONE))).toEqual({ grade: 'n/o', evidence: 'no scenario of this rule in this run.' });
    }
  });
});

/** Back-off calls (the first `count` of 20) whose retries come `waits[call][retry]` ms after the previous answer. */
function backoff(waits: number[][], count = backoffScenarios.length): Observations {
  const calls: Call[] = backoffScenarios.slice(0, count).map((scenario, i) => [scenario, [{ wait: 1 }, ...(waits[i] ?? []).map((wait) => ({ wait }))]]);
  return observe(calls);
}
/** 20 waits evenly over [low, high]. */
const even = (low: number, high: number) => Array.from({ length: 20 }, (_, i) => Math.round(low + ((high - low) * i) / 19));
const spread1 = even(0, 250);
const spread2 = even(0, 500);
const both = (first: number[], second: number[]) => first.map((w, i) => (second[i] === undefined ? [w] : [w, second[i] as number]));
const fixed = (wait: number, count = 20) => Array<number>(count).fill(wait);
const ATTEMPTS_3 = Array<number>(20).fill(3).join(', ');

describe('backoff-check: attempts bounded, and per retry number the waits within the bound and spread', () => {
  it('the bound before retry n is min(maxMs, baseMs × factor^(n−1))', () => {
    expect([1, 2, 3, 6, 7, 10].map((n) => backoffBoundMs(POLICY, n))).toEqual([250, 500, 1000, 8000, 10_000, 10_000]);
  });

  it('full jitter within the bounds passes', () => {
    expect(checkBackoff(ctxOf(backoff(both(spread1, spread2))))).toEqual({
      grade: 'pass',
      evidence: `20 calls met a 503 without Retry-After on every attempt: ${ATTEMPTS_3} attempts (at most 3); waits before retry 1: 0–250 ms of 20 calls (bound 250 ms), before retry 2: 0–500 ms of 20 calls (bound 500 ms): within the bounds and spread (full jitter).`,
    });
  });

  it('a first retry at once on every call fails, although the second is spread, and one latency spike does not hide it', () => {
    const atOnce = [...fixed(0, 18), 3, 240];
    const verdict = checkBackoff(ctxOf(backoff(both(atOnce, spread2))));
    expect(verdict.grade).toBe('fail');
    expect(verdict.evidence).toMatch(
      /: the waits before retry 1, the shortest and the longest set aside, all within 3 ms of each other, not spread over 0–250 ms \(no jitter\)\.$/,
    );
  });

  it('the spread, shortest and longest set aside, must reach 30 % of the bound: 75 ms before retry 1 passes, 74 ms fails', () => {
    const middle = (low: number, width: number) => Array.from({ length: 18 }, (_, i) => low + (width * i) / 17);
    const narrow = (width: number) => both([0, ...middle(100, width), 250], spread2);
    expect(checkBackoff(ctxOf(backoff(narrow(75)))).grade).toBe('pass');
    expect(checkBackoff(ctxOf(backoff(narrow(74)))).evidence).toMatch(
      /retry 1, the shortest and the longest set aside, all within 74 ms of each other, not spread over 0–250 ms/,
    );
    expect(checkBackoff(ctxOf(backoff(both(spread1, [0, ...middle(200, 149), 500]))))).toMatchObject({
      grade: 'fail',
      evidence: expect.stringMatching(/retry 2, the shortest and the longest set aside, all within 149 ms/),
    });
  });

  it('the longest wait but one beyond its bound (plus the tolerance) fails, on any retry number', () => {
    const tolerated = 250 + BOUND_TOLERANCE_MS;
    expect(checkBackoff(ctxOf(backoff(both([...spread1.slice(2), tolerated, 5000], spread2)))).grade).toBe('pass');
    expect(checkBackoff(ctxOf(backoff(both([...spread1.slice(2), tolerated + 1, 5000], spread2)))).evidence).toMatch(
      /: waits before retry 1 of up to 351 ms \(the longest but one\), beyond its bound of 250 ms\.$/,
    );
    expect(checkBackoff(ctxOf(backoff(both(spread1, [...spread2.slice(2), 601, 601]))))).toMatchObject({
      grade: 'fail',
      evidence: expect.stringMatching(/waits before retry 2 of up to 601 ms \(the longest but one\), beyond its bound of 500 ms\.$/),
    });
    // A fixed schedule at the bounds: within them, never spread.
    expect(checkBackoff(ctxOf(backoff(both(fixed(250), fixed(500)))))).toMatchObject({
      grade: 'fail',
      evidence: expect.stringMatching(/retry 1, the shortest and the longest set aside, all within 0 ms/),
    });
    // A fixed schedule of 1 s, then 2 s: beyond the bound.
    expect(checkBackoff(ctxOf(backoff(both(fixed(1000), fixed(2000)))))).toMatchObject({
      grade: 'fail',
      evidence: expect.stringMatching(/retry 1 of up to 1000 ms/),
    });
  });

  it('the waits are judged in any order, and each retry number not judged is named', () => {
    const shuffled = both([...spread1].reverse(), [...spread2.slice(10), ...spread2.slice(0, 10)]);
    expect(checkBackoff(ctxOf(backoff(shuffled))).evidence).toMatch(
      /before retry 1: 0–250 ms of 20 calls \(bound 250 ms\), before retry 2: 0–500 ms of 20 calls \(bound 500 ms\): within the bounds/,
    );
    expect(checkBackoff(ctxOf(backoff(both([...fixed(0, 10), ...fixed(240, 10)], spread2)))).grade).toBe('pass');
    const four = withPolicy((p) => ({ attempts: { ...p.attempts, max: 4 } }));
    const threeRetries = [...spread1.map((w, i) => (i < 4 ? [w, w, w] : [w]))];
    expect(checkBackoff(ctxOf(backoff(threeRetries), four)).evidence).toMatch(/; retry 2, 3 seen in fewer than 16 calls, not judged for spread\.$/);
  });

  it('a single call beyond the bound is judged on its one wait', () => {
    const single = backoff([[400]], 1);
    expect(checkBackoff(ctxOf({ ...single, scenarios: [backoffScenarios[0] as Scenario] }))).toMatchObject({
      grade: 'fail',
      evidence: expect.stringMatching(/retry 1 of up to 400 ms/),
    });
  });

  it('a retry number seen in fewer than 16 calls is not judged for spread; none judged is n/o', () => {
    const fifteen = [...spread1.slice(0, 15).map((w) => [w, w]), [], [], [], [], []];
    const shown = (first: string, second: string) =>
      `waits before retry 1: ${first} ms of 15 calls (bound 250 ms), before retry 2: ${second} ms of 15 calls (bound 500 ms)`;
    expect(checkBackoff(ctxOf(backoff(fifteen)))).toEqual({
      grade: 'n/o',
      evidence: `20 calls met a 503 without Retry-After on every attempt: ${Array<number>(15).fill(3).join(', ')}, 1, 1, 1, 1, 1 attempts (at most 3); ${shown('0–184', '0–184')}; fewer than 16 calls were retried, so their spread cannot be judged.`,
    });
    const sixteenFirst = [...spread1.slice(0, 16).map((w, i) => (i < 15 ? [w, w] : [w])), [], [], [], []];
    expect(checkBackoff(ctxOf(backoff(sixteenFirst))).evidence).toMatch(
      /: within the bounds and spread \(full jitter\); retry 2 seen in fewer than 16 calls, not judged for spread\.$/,
    );
    expect(checkBackoff(ctxOf(backoff([])))).toMatchObject({
      grade: 'n/o',
      evidence: expect.stringContaining('1, 1 attempts (at most 3); waits none; fewer than 16'),
    });
  });

  it('more attempts than the policy allows fail; a call still retrying when the run ended fails; a call never made is n/o', () => {
    expect(checkBackoff(ctxOf(backoff([[10, 20, 30]])))).toEqual({
      grade: 'fail',
      evidence: 'sess_grade_backoff_1: 4 attempts against a 503 on every one; the retry policy allows at most 3.',
    });
    const cut = { ...backoff([[10]], 1), end: { kind: 'time-limit', afterMs: 60_000 } as const };
    expect(checkBackoff(ctxOf(cut))).toEqual({ grade: 'fail', evidence: 'sess_grade_backoff_1: still retrying a 503 after 2 attempts when the run ended.' });
    expect(checkBackoff(ctxOf(backoff([], 0)))).toEqual({
      grade: 'n/o',
      evidence: 'no request resumed sess_grade_backoff_1: the client is to resume each id of SESSION_RESUME_SESSION_IDS once, in order.',
    });
    expect(checkBackoff(ctxOf(NONE))).toEqual({ grade: 'n/o', evidence: 'no scenario of this rule in this run.' });
  });
});

describe('idempotency-checks: one key per resume or none, and the lost answer', () => {
  const s503 = one('retry-503');
  const s429 = one('retry-429');
  const keys = (...list: string[][]): Step[] => list.map((idempotencyKeys) => ({ idempotencyKeys }));

  it('keyed calls: one valid key, the same on every attempt, never another call\u2019s; n/o until one is retried', () => {
    expect(
      checkIdempotencyKey(
        ctxOf(
          observe([
            [s503, keys(['a'], ['a'])],
            [s429, keys(['b'])],
          ]),
        ),
      ),
    ).toEqual({
      grade: 'pass',
      evidence: '2 calls, each with its own key; the 1 retried kept it on every attempt (3 attempts in all).',
    });
    expect(
      checkIdempotencyKey(
        ctxOf(
          observe([
            [s503, keys(['a'])],
            [s429, keys(['b'])],
          ]),
        ),
      ),
    ).toEqual({
      grade: 'n/o',
      evidence: 'each of 2 calls with a key carried its own, but none with a key was retried: whether a retry keeps it was not seen.',
    });
    expect(checkIdempotencyKey(ctxOf(observe([[s503, keys(['a'], ['b'])]])))).toEqual({
      grade: 'fail',
      evidence: 'the key changed between the attempts of sess_grade_503 (2 attempts, 2 keys, a missing one counted).',
    });
    expect(checkIdempotencyKey(ctxOf(observe([[s503, keys(['a'], [])]]))).evidence).toMatch(/^the key changed between the attempts of sess_grade_503/);
    expect(checkIdempotencyKey(ctxOf(observe([[s503, keys([], ['a'])]]))).evidence).toMatch(/^the key changed between the attempts of sess_grade_503/);
    expect(
      checkIdempotencyKey(
        ctxOf(
          observe([
            [s503, keys(['a'], ['a'])],
            [s429, keys(['a'])],
          ]),
        ),
      ),
    ).toEqual({
      grade: 'fail',
      evidence: 'sess_grade_429 was sent with the key of sess_grade_503: each resume needs its own key.',
    });
    expect(checkIdempotencyKey(ctxOf(observe([[s503, keys(['a'], ['a', 'a'])]])))).toEqual({
      grade: 'fail',
      evidence: 'sess_grade_503 attempt 2 carried no single valid Idempotency-Key (1 to 255 printable ASCII characters).',
    });
    expect(checkIdempotencyKey(ctxOf(observe([[s503, keys([''])]]))).grade).toBe('fail');
  });

  it('keyless calls pass while the key is recommended, fail when it is required; mixed calls are each judged', () => {
    expect(
      checkIdempotencyKey(
        ctxOf(
          observe([
            [s503, keys([], [])],
            [s429, keys([])],
          ]),
        ),
      ),
    ).toEqual({
      grade: 'pass',
      evidence: `no attempt of the 2 calls carried an Idempotency-Key, which the retry policy recommends and does not require; judged as a client without a key: ${KEYLESS_RULE}.`,
    });
    const required = withPolicy((p) => ({ idempotencyKey: { ...p.idempotencyKey, requirement: 'required' } }));
    expect(
      checkIdempotencyKey(
        ctxOf(
          observe([
            [s503, keys(['a'], ['a'])],
            [s429, keys([])],
          ]),
          required,
        ),
      ),
    ).toEqual({
      grade: 'fail',
      evidence: 'sess_grade_429 attempt 1 carried no Idempotency-Key, which the retry policy requires.',
    });
    expect(checkIdempotencyKey(ctxOf(observe([[s503, keys(['a'], ['a'])]]), required)).grade).toBe('pass');
    expect(
      checkIdempotencyKey(
        ctxOf(
          observe([
            [s503, keys(['a'], ['a'])],
            [s429, keys([])],
            [one('retry-500'), keys([])],
          ]),
        ),
      ),
    ).toEqual({
      grade: 'pass',
      evidence: '1 calls, each with its own key; the 1 retried kept it on every attempt (4 attempts in all); 2 without a key on any attempt.',
    });
    expect(
      checkIdempotencyKey(
        ctxOf(
          observe([
            [s503, keys(['a'])],
            [s429, keys([])],
          ]),
        ),
      ).evidence,
    ).toBe(
      'each of 1 calls with a key carried its own; 1 without a key on any attempt, but none with a key was retried: whether a retry keeps it was not seen.',
    );
    expect(checkIdempotencyKey(ctxOf(observe([])))).toEqual({ grade: 'n/o', evidence: 'no resume request arrived.' });
  });

  it('the lost answer: with the key the retry ends as resumed; not retried, or read as not_paused, fails', () => {
    const lostCall = one('answer-lost');
    const applied: Step = { status: undefined, fault: 'apply-then-reset' };
    const seen = 'sess_grade_answer_lost, applied and its answer lost: ';
    expect(checkAnswerLost(ctxOf(observe([[lostCall, [applied, { status: 200, replayed: true }]]])))).toEqual({
      grade: 'pass',
      evidence: `${seen}2 attempts: connection reset, 10 ms later 200 (Idempotent-Replayed): ended as resumed.`,
    });
    expect(checkAnswerLost(ctxOf(observe([[lostCall, [applied]]])))).toEqual({
      grade: 'fail',
      evidence: `${seen}1 attempt: connection reset: not retried, so the client never learned that the session resumed.`,
    });
    expect(checkAnswerLost(ctxOf(observe([[lostCall, [applied, { status: 409 }, { status: 503 }]]])))).toEqual({
      grade: 'fail',
      evidence: `${seen}3 attempts: connection reset, 10 ms later 409, 10 ms later 503: the retry did not carry the key of the attempt that applied it, so it read as not_paused although this call resumed the session.`,
    });
    expect(checkAnswerLost(ctxOf(observe([[lostCall, [applied, { status: 503 }]]])))).toEqual({
      grade: 'fail',
      evidence: `${seen}2 attempts: connection reset, 10 ms later 503: did not end as resumed.`,
    });
  });

  it('the lost answer without a key: reported passes, a retry fails with the rule', () => {
    const lostCall = one('answer-lost');
    const applied: Step = { ...KEYLESS, status: undefined, fault: 'apply-then-reset' };
    const rule = `the call was sent without an Idempotency-Key and, after a connection lost after the request was sent, the resume may have been applied: ${KEYLESS_RULE}`;
    expect(checkAnswerLost(ctxOf(observe([[lostCall, [applied]]])))).toEqual({
      grade: 'pass',
      evidence: `sess_grade_answer_lost, applied and its answer lost: 1 attempt: connection reset; ${rule}: reported, not retried.`,
    });
    expect(checkAnswerLost(ctxOf(observe([[lostCall, [applied, { ...KEYLESS, status: 409 }]]])))).toEqual({
      grade: 'fail',
      evidence: `sess_grade_answer_lost, applied and its answer lost: 2 attempts: connection reset, 10 ms later 409: retried, although ${rule}.`,
    });
    expect(checkAnswerLost(ctxOf(observe([])))).toMatchObject({ grade: 'n/o', evidence: expect.stringMatching(/^no request resumed sess_grade_answer_lost/) });
    expect(checkAnswerLost(ctxOf(NONE))).toEqual({ grade: 'n/o', evidence: 'no scenario of this rule in this run.' });
  });
});

describe('outcome-checks: 400, 401, 404, 422 and 409 not_paused sent once', () => {
  const fours = scenarios.filter((s) => s.rule === 'no-retry-4xx');
  const statusOf = (s: Scenario) => Number(s.sessionId.slice(-3));

  it('one attempt each passes; a second attempt fails, naming each call sent more than once', () => {
    expect(checkNoRetry4xx(ctxOf(observe(fours.map((s) => [s, [{ status: statusOf(s) }]]))))).toEqual({
      grade: 'pass',
      evidence: '400: 1 attempt, 401: 1 attempt, 404: 1 attempt, 422: 1 attempt; reported, not retried.',
    });
    const twice = fours.map((s, i): Call => [s, Array.from({ length: i === 1 || i === 3 ? 2 : 1 }, () => ({ status: statusOf(s) }))]);
    expect(checkNoRetry4xx(ctxOf(observe(twice)))).toEqual({
      grade: 'fail',
      evidence: 'sess_grade_401 (401) was sent 2 times, sess_grade_422 (422) was sent 2 times: this answer is an outcome, not a failure to retry.',
    });
    expect(checkNotPaused(ctxOf(observe([[one('not-paused'), [{ status: 409 }]]])))).toEqual({
      grade: 'pass',
      evidence: '409: 1 attempt; reported, not retried.',
    });
    expect(checkNotPaused(ctxOf(observe([[one('not-paused'), [{ status: 409 }, { status: 409 }, { status: 409 }]]]))).evidence).toBe(
      'sess_grade_not_paused (409) was sent 3 times: this answer is an outcome, not a failure to retry.',
    );
  });

  it('a call not made or cut by the run is n/o; a run without the rule\u2019s scenario is n/o', () => {
    expect(checkNotPaused(ctxOf(observe([])))).toMatchObject({ grade: 'n/o', evidence: expect.stringMatching(/^no request resumed sess_grade_not_paused/) });
    expect(checkNoRetry4xx(ctxOf(observe([[fours[0] as Scenario, [{ status: 400 }]]], { end: { kind: 'stopped', signal: 'SIGINT' } })))).toMatchObject({
      grade: 'n/o',
    });
    expect(checkNoRetry4xx(ctxOf(NONE))).toEqual({ grade: 'n/o', evidence: 'no scenario of this rule in this run.' });
  });
});

describe('request-check: every request the contract\u2019s resume call', () => {
  const s503 = one('retry-503');
  const request = (...steps: Step[]) => checkRequest(ctxOf(observe([[s503, steps]])));
  const failure = (step: Step) => request({}, step).evidence;

  it('POST to a given id, one Bearer with the key, no body or a JSON object, passes', () => {
    expect(request({}, {})).toEqual({
      grade: 'pass',
      evidence: '2 requests: POST /v1/sessions/{session_id}/resume, Authorization: Bearer with the key given, no body.',
    });
    const json = { body: '{"a":1}', bodyBytes: 7 };
    for (const contentType of ['application/json', 'Application/JSON; charset=utf-8', 'application/json ;x=y']) {
      expect(request({}, { ...json, contentType }).evidence, contentType).toBe(
        '2 requests: POST /v1/sessions/{session_id}/resume, Authorization: Bearer with the key given, no body or a JSON object.',
      );
    }
    expect(request({ authorization: [`bearer ${API_KEY}`] }).grade).toBe('pass');
  });

  it('each departure fails, naming the request and what is wrong', () => {
    expect(failure({ scenario: undefined, target: `/v1/${'x'.repeat(100)}` })).toBe(
      `request 2 of 2: a request to /v1/${'x'.repeat(76)}, which is not the resume path of a given session id.`,
    );
    expect(failure({ method: 'PUT' })).toBe('request 2 of 2: PUT instead of POST.');
    expect(request({ method: 'PUT' }).grade).toBe('fail');
    expect(failure({ authorization: [] })).toBe('request 2 of 2: 0 Authorization headers instead of one.');
    expect(failure({ authorization: ['Bearer a', 'Bearer b'] })).toBe('request 2 of 2: 2 Authorization headers instead of one.');
    const wrongKey = 'request 2 of 2: an Authorization header other than Bearer with the SESSION_RESUME_API_KEY given.';
    for (const authorization of [`Basic ${API_KEY}`, 'Bearer other', `Bearer ${API_KEY} x`, 'Bearer'])
      expect(failure({ authorization: [authorization] }), authorization).toBe(wrongKey);
    expect(failure({ body: 'x', bodyBytes: 1 })).toBe('request 2 of 2: a 1-byte body sent as no Content-Type.');
    expect(failure({ body: '{}', bodyBytes: 2, contentType: 'text/plain' })).toBe('request 2 of 2: a 2-byte body sent as text/plain.');
    expect(failure({ body: '{}', bodyBytes: 2, contentType: 'application/jsonx' })).toBe('request 2 of 2: a 2-byte body sent as application/jsonx.');
    expect(failure({ body: '{}', bodyBytes: 2, contentType: 'x application/json' })).toBe('request 2 of 2: a 2-byte body sent as x application/json.');
    const notObject = (body: string) => failure({ body, bodyBytes: body.length, contentType: 'application/json' });
    expect(notObject('[1]')).toBe('request 2 of 2: a body that is not a JSON object ([1]).');
    expect(notObject('null')).toBe('request 2 of 2: a body that is not a JSON object (null).');
    expect(notObject('"s"')).toBe('request 2 of 2: a body that is not a JSON object ("s").');
    expect(notObject(`{${'y'.repeat(60)}`)).toBe(`request 2 of 2: a body that is not a JSON object ({${'y'.repeat(39)}).`);
    expect(request({ method: 'GET' }, { method: 'PUT' }).evidence).toBe('request 1 of 2: GET instead of POST.');
  });

  it('no request at all fails; requests past the record\u2019s bound fail', () => {
    expect(checkRequest(ctxOf(observe([])))).toEqual({
      grade: 'fail',
      evidence: 'no request reached SESSION_RESUME_BASE_URL: the client is to resume each id of SESSION_RESUME_SESSION_IDS there.',
    });
    expect(checkRequest(ctxOf({ ...observe([[s503, [{}]]]), refused: 3 }))).toEqual({
      grade: 'fail',
      evidence: `4 requests in one run for ${scenarios.length} session ids: the grader recorded 1 and refused the rest.`,
    });
  });
});

describe('timeout-check: the hung attempt abandoned by the client', () => {
  const hang = one('timeout');
  const hung = (by: Attempt['abandonedBy'], key: Step = {}): Step => ({
    ...key,
    status: undefined,
    fault: 'hang',
    endedAt: by === undefined ? undefined : 10 + 9_500,
    abandonedBy: by,
  });
  const deadline = "the retry policy's attempt deadline is 10000 ms";

  it('abandoned by the client and reported passes; retried with its key passes', () => {
    expect(checkTimeout(ctxOf(observe([[hang, [hung('client')]]])))).toEqual({
      grade: 'pass',
      evidence: `sess_grade_hang: abandoned after 9500 ms (${deadline}), then reported, not retried.`,
    });
    expect(checkTimeout(ctxOf(observe([[hang, [hung('client'), { status: 200 }]]])))).toEqual({
      grade: 'pass',
      evidence: `sess_grade_hang: abandoned after 9500 ms (${deadline}), then retried: 2 attempts: no answer (closed by the client), 10 ms later 200.`,
    });
  });

  it('retried without a key fails, since a timed-out attempt may have applied the resume (unless the policy says it cannot have)', () => {
    const obs = observe([[hang, [hung('client', KEYLESS), { ...KEYLESS, status: 200 }]]]);
    expect(checkTimeout(ctxOf(obs))).toEqual({
      grade: 'fail',
      evidence: `sess_grade_hang: abandoned after 9500 ms (${deadline}), then retried without an Idempotency-Key (2 attempts: no answer (closed by the client), 10 ms later 200), although the resume may have been applied by an attempt that timed out: ${KEYLESS_RULE}.`,
    });
    expect(
      checkTimeout(
        ctxOf(
          obs,
          withPolicy((p) => ({ mayHaveApplied: { ...p.mayHaveApplied, timedOutAttempts: false } })),
        ),
      ).grade,
    ).toBe('pass');
  });

  it('still waiting at the grader\u2019s limit fails; a run that ended first, or no request, is n/o', () => {
    expect(checkTimeout(ctxOf(observe([[hang, [hung('grader')]]])))).toEqual({
      grade: 'fail',
      evidence: `sess_grade_hang: no answer for 12000 ms and the client was still waiting (${deadline}); the grader reset the connection.`,
    });
    expect(checkTimeout(ctxOf(observe([[hang, [hung(undefined)]]])))).toEqual({
      grade: 'n/o',
      evidence: "sess_grade_hang: the run ended while the client still waited for the answer, before the grader's limit of 12000 ms.",
    });
    expect(checkTimeout(ctxOf(observe([])))).toEqual({
      grade: 'n/o',
      evidence: 'no request resumed sess_grade_hang: the client is to resume each id of SESSION_RESUME_SESSION_IDS once, in order.',
    });
    expect(checkTimeout(ctxOf(NONE))).toEqual({ grade: 'n/o', evidence: 'no scenario of this rule in this run.' });
  });
});
