/**
 * The false verdicts `client grade` must not give, each on observations of a whole run with
 * the default faults (no sockets): a client without an Idempotency-Key judged by what it may
 * retry, the back-off judged per retry number, Retry-After defaults that no common fixed wait
 * meets, and "not observable" spelled as every grader's JSON spells it.
 */
import { describe, expect, it } from 'vitest';
import type { Attempt, Observations } from '../../cli/client-grade/observations.js';
import { FAULT_DEFAULTS, gradeObservations } from '../../cli/client-grade/run-client-grade.js';
import { createScenarios, type Scenario } from '../../cli/client-grade/scenarios.js';

const scenarios = createScenarios(FAULT_DEFAULTS);
const API_KEY = 'grade_key';
const of = (rule: string) => scenarios.filter((s) => s.rule === rule);

/** One call's attempts, without their times; no key unless `key` is given. */
function call(scenario: Scenario, steps: [number | undefined, number][], key?: string): Omit<Attempt, 'seq' | 'receivedAt' | 'endedAt'>[] {
  return steps.map(([status]) => ({
    method: 'POST',
    target: `/v1/sessions/${scenario.sessionId}/resume`,
    scenario,
    number: 0,
    authorization: [`Bearer ${API_KEY}`],
    idempotencyKeys: key === undefined ? [] : [key],
    body: '',
    bodyBytes: 0,
    fault: status === undefined ? 'reset' : 'answer',
    ...(status === undefined ? {} : { status }),
  }));
}

/** A run of calls in order; each step is [status (undefined: a lost connection), ms waited before it]. */
function run(calls: { scenario: Scenario; steps: [number | undefined, number][]; key?: string }[]): Observations {
  const attempts: Attempt[] = [];
  let clock = 0;
  for (const { scenario, steps, key } of calls) {
    call(scenario, steps, key).forEach((attempt, j) => {
      clock += (steps[j] as [number | undefined, number])[1] + 1;
      const retryAfterSeconds = scenario.script[j]?.kind === 'answer' ? (scenario.script[j] as { retryAfterSeconds?: number }).retryAfterSeconds : undefined;
      attempts.push({
        ...attempt,
        seq: attempts.length + 1,
        number: j + 1,
        receivedAt: clock,
        endedAt: clock,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      });
    });
  }
  return { scenarios, attempts, refused: 0, end: { kind: 'exited', code: 0, signal: null }, apiKey: API_KEY, hangLimitMs: 12_000 };
}

const verdict = (obs: Observations, rule: 'retry-500' | 'retry-network' | 'retry-503' | 'retry-429' | 'backoff') => gradeObservations(obs, [rule])[0];
const one = (rule: string) => of(rule)[0] as Scenario;

describe('client grade gives no false verdict', () => {
  it('a client without a key that retries a 500 or a lost connection fails, saying the rule', () => {
    const retried500 = verdict(
      run([
        {
          scenario: one('retry-500'),
          steps: [
            [500, 0],
            [200, 300],
          ],
        },
      ]),
      'retry-500',
    );
    expect(retried500?.grade).toBe('fail');
    expect(retried500?.evidence).toMatch(/retried, although the call was sent without an Idempotency-Key and, after a 500, the resume may have been applied/);
    expect(
      verdict(
        run([
          {
            scenario: one('retry-network'),
            steps: [
              [undefined, 0],
              [200, 300],
            ],
          },
        ]),
        'retry-network',
      )?.grade,
    ).toBe('fail');
  });

  it('a client without a key that reports a 500 and a lost connection passes; with a key it must retry them', () => {
    expect(verdict(run([{ scenario: one('retry-500'), steps: [[500, 0]] }]), 'retry-500')?.grade).toBe('pass');
    expect(verdict(run([{ scenario: one('retry-network'), steps: [[undefined, 0]] }]), 'retry-network')?.grade).toBe('pass');
    expect(verdict(run([{ scenario: one('retry-500'), steps: [[500, 0]], key: 'k' }]), 'retry-500')?.grade).toBe('fail');
  });

  it('a first retry at once on every call fails the back-off, although the second is spread', () => {
    const calls = of('backoff').map((scenario, i) => ({
      scenario,
      steps: [
        [503, 0],
        [503, 0],
        [503, 25 * (i % 20)],
      ] as [number, number][],
      key: `k${i}`,
    }));
    expect(verdict(run(calls), 'backoff')?.grade).toBe('fail');
  });

  it('waits spread far beyond the bound fail the back-off', () => {
    const calls = of('backoff').map((scenario, i) => ({
      scenario,
      steps: [
        [503, 0],
        [503, 1000 + 200 * i],
        [503, 2000 + 200 * i],
      ] as [number, number][],
      key: `k${i}`,
    }));
    expect(verdict(run(calls), 'backoff')?.grade).toBe('fail');
  });

  it('with the default Retry-After, a client that ignores it and waits a common fixed time fails the 503 and the 429', () => {
    for (const fixed of [0, 100, 250, 500, 1000, 2000]) {
      expect(
        verdict(
          run([
            {
              scenario: one('retry-503'),
              steps: [
                [503, 0],
                [200, fixed],
              ],
            },
          ]),
          'retry-503',
        )?.grade,
        `503, ${fixed} ms`,
      ).toBe('fail');
      expect(
        verdict(
          run([
            {
              scenario: one('retry-429'),
              steps: [
                [429, 0],
                [200, fixed],
              ],
            },
          ]),
          'retry-429',
        )?.grade,
        `429, ${fixed} ms`,
      ).toBe('fail');
    }
  });

  it('a rule not observed is graded "n/o", as watch and webhook grade spell it', () => {
    expect(gradeObservations(run([]), ['backoff'])[0]?.grade).toBe('n/o');
  });
});
