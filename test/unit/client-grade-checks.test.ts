/**
 * The checks of `client grade` on observations written here (no sockets): a rule passes only on
 * what was seen (no request at all grades nothing pass), and the answers the server sends are
 * the contract's (client-grade-rules.test.ts tests each check). docs/cli.md names every rule.
 */
import { readFileSync } from 'node:fs';
import { contract } from '@session-resume-api/runtime/contract';
import { describe, expect, it } from 'vitest';
import { CLIENT_RULES } from '../../cli/client-grade/client-rules.js';
import { contractAnswer } from '../../cli/client-grade/contract-answers.js';
import type { Attempt, Observations } from '../../cli/client-grade/observations.js';
import { gradeObservations } from '../../cli/client-grade/run-client-grade.js';
import { createScenarios, type Scenario } from '../../cli/client-grade/scenarios.js';

const scenarios = createScenarios({ unavailableRetryAfterSeconds: 1, rateLimitedRetryAfterSeconds: 2, backoffCalls: 4 });
const KEY = 'grade_key';
const byRule = (rule: string) => scenarios.filter((s) => s.rule === rule);

/** Observations of a client that exited, from `calls`: per scenario, the end time of each attempt's wait before it. */
function observed(calls: [Scenario, Partial<Attempt>[]][]): Observations {
  const attempts: Attempt[] = [];
  let clock = 0;
  for (const [scenario, list] of calls) {
    list.forEach((extra, i) => {
      clock += 10;
      attempts.push({
        seq: attempts.length + 1,
        method: 'POST',
        target: `/v1/sessions/${scenario.sessionId}/resume`,
        scenario,
        number: i + 1,
        authorization: [`Bearer ${KEY}`],
        idempotencyKeys: [`key-${scenario.sessionId}`],
        body: '',
        bodyBytes: 0,
        receivedAt: clock,
        endedAt: clock,
        fault: 'answer',
        status: 503,
        ...extra,
      });
      clock = attempts.at(-1)?.endedAt ?? clock;
    });
  }
  return { scenarios, attempts, refused: 0, end: { kind: 'exited', code: 0, signal: null }, apiKey: KEY, hangLimitMs: 12_000 };
}

const gradeOf = (obs: Observations, rule: (typeof CLIENT_RULES)[number]['id']) => gradeObservations(obs, [rule])[0];

describe('client grade checks', () => {
  it('with no request at all, no rule passes: request fails, the others are not observable', () => {
    const entries = gradeObservations(observed([]));
    expect(entries.map((e) => e.rule)).toEqual(CLIENT_RULES.map((r) => r.id));
    expect(entries.filter((e) => e.grade === 'pass')).toEqual([]);
    expect(entries.filter((e) => e.grade === 'fail').map((e) => e.rule)).toEqual(['request']);
  });

  it('requests refused past the record\u2019s bound fail the request rule', () => {
    const obs = { ...observed([[byRule('retry-503')[0] as Scenario, [{ status: 200 }]]]), refused: 3 };
    expect(gradeOf(obs, 'request')?.evidence).toMatch(/^4 requests in one run for 16 session ids: the grader recorded 1 and refused the rest\./);
  });

  it('a run cut by the time limit leaves the open call not observable, never passed', () => {
    const obs = { ...observed([[byRule('retry-503')[0] as Scenario, [{ retryAfterSeconds: 1 }]]]), end: { kind: 'time-limit', afterMs: 60_000 } as const };
    expect(gradeOf(obs, 'retry-503')?.grade).toBe('n/o');
  });

  it('Retry-After is a floor: a retry sooner than asked fails, one after it passes', () => {
    const scenario = byRule('retry-429')[0] as Scenario;
    const call = (wait: number): [Scenario, Partial<Attempt>[]][] => [
      [
        scenario,
        [
          { status: 429, retryAfterSeconds: 2, endedAt: 10 },
          { status: 200, receivedAt: 10 + wait, endedAt: 10 + wait },
        ],
      ],
    ];
    expect(gradeOf(observed(call(1000)), 'retry-429')?.grade).toBe('fail');
    expect(gradeOf(observed(call(2005)), 'retry-429')?.grade).toBe('pass');
  });

  it('the answers are the contract\u2019s: every error example is an Error body, the resume a ResumeResult', () => {
    for (const scenario of scenarios) {
      for (const fault of scenario.script) {
        if (fault.kind !== 'answer') continue;
        const answer = contractAnswer(fault.example);
        expect(contract.validate('Error', JSON.parse(answer.body)).ok, fault.example).toBe(true);
      }
    }
    expect(contract.validate('ResumeResult', JSON.parse(contractAnswer('resumed').body)).ok).toBe(true);
  });

  it('docs/cli.md names every rule in its client grade section', () => {
    const page = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('## client grade'), page.indexOf('\n## ', page.indexOf('## client grade') + 1));
    for (const { id } of CLIENT_RULES) expect(section, id).toContain(`\`${id}\``);
  });
});
