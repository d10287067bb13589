/** The bench's runner and report work end to end on one short case (no timing is asserted). */
import { describe, expect, it } from 'vitest';
import { EXPRESS_VALIDATOR, listCases, runCases } from '../../bench/cases.js';
import { renderReport } from '../../bench/report.js';

describe('bench', () => {
  it('loads the reference server and its baseline, and reports the ratio', async () => {
    const names = [EXPRESS_VALIDATOR, 'reference server, memory store, responses validated (tests)'];
    const cases = listCases('redis://unused').filter((c) => names.includes(c.name));
    const results = await runCases(cases, { durationS: 1, connections: 2 });
    expect(results.map((r) => r.name)).toEqual(names);
    for (const { result } of results) {
      expect(result.requests).toBeGreaterThan(0);
      expect(result.errors).toBe(0);
      // Every answer is the steady-state 409 not_paused, so all are non-2xx.
      expect(result.non2xx).toBe(result.requests);
    }
    const report = renderReport(
      results,
      { durationS: 1, connections: 2 },
      {
        date: 'd',
        node: 'n',
        cpus: 2,
        cpuModel: 'cpu',
        command: 'npm run bench',
      },
    );
    expect(report).toMatch(/\| reference server, memory store, responses validated \(tests\) \| [\d,]+ \| \d+\.\d\d× \|/);
    expect(report).toContain(`| ${EXPRESS_VALIDATOR} | `);
  }, 30_000);
});
