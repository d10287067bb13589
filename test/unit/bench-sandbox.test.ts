/** The sandbox rows of the bench: Prism is the baseline of each, and the start-up table reads as ratios (no timing asserted). */
import { describe, expect, it } from 'vitest';
import { renderStartups } from '../../bench/cold-start.js';
import { listSandboxCases } from '../../bench/sandbox-cases.js';

describe('bench sandbox rows', () => {
  it('compares the sandbox with Prism in one group, Prism first as the baseline', () => {
    const cases = listSandboxCases();
    expect(cases[0]?.name).toBe(cases[0]?.baseline);
    expect(cases[0]?.name).toMatch(/Prism/);
    expect(cases.slice(1).every((c) => c.baseline === cases[0]?.name && /sandbox/.test(c.name))).toBe(true);
    expect(new Set(cases.map((c) => c.group)).size).toBe(1);
  });

  it('renders start to first answer as ratios against Prism', () => {
    const text = renderStartups([
      { name: 'Prism', minMs: 1000, medianMs: 1600, runsMs: [1600, 1000, 2000] },
      { name: 'sandbox', minMs: 400, medianMs: 400, runsMs: [400, 400, 500] },
    ]);
    expect(text).toContain('| Prism | 1000 | baseline | 1600 | baseline | 1600, 1000, 2000 |');
    expect(text).toContain('| sandbox | 400 | 0.40× | 400 | 0.25× | 400, 400, 500 |');
  });
});
