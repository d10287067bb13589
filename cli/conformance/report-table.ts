/** Renders a conformance report as a fixed-width pass/fail table for a terminal. */
import type { ConformanceReport } from './run-conformance.js';

const LABEL = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const;

/** One line per check (result, name, detail), then a summary line. */
export function renderReportTable(report: ConformanceReport): string {
  const width = Math.max(5, ...report.results.map((r) => r.name.length));
  const lines = [
    `Conformance of ${report.target} to spec/openapi.yaml`,
    '',
    `RESULT  ${'CHECK'.padEnd(width)}  DETAIL`,
    ...report.results.map((r) => `${LABEL[r.outcome].padEnd(6)}  ${r.name.padEnd(width)}  ${r.detail}`),
    '',
  ];
  const count = (o: 'pass' | 'fail' | 'skip') => report.results.filter((r) => r.outcome === o).length;
  lines.push(`${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped`);
  return lines.join('\n') + '\n';
}
