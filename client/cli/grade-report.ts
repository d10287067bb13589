/**
 * The report of the graders (`webhook grade`, `client grade`): one verdict per rule, one line
 * each (or one JSON object with --json), and a closing count.
 */

/** How a check went. */
export interface Verdict {
  grade: 'pass' | 'fail' | 'not-observable';
  /** What was sent and answered; for a failure, what the service will do. */
  evidence: string;
}

/** One graded rule, as `--json` prints it (one object per line). */
export interface GradeEntry<Rule extends string = string> extends Verdict {
  rule: Rule;
  title: string;
}

const MARK = { pass: 'pass', fail: 'FAIL', 'not-observable': 'n/o' } as const;

/** One report line: mark, rule id, evidence. */
export function formatGradeLine(entry: GradeEntry): string {
  return `${MARK[entry.grade].padEnd(5)} ${entry.rule.padEnd(25)} ${entry.evidence}`;
}

/** The closing line: how many rules passed, failed, could not be observed. */
export function formatGradeSummary(entries: readonly GradeEntry[]): string {
  const count = (grade: Verdict['grade']) => entries.filter((e) => e.grade === grade).length;
  return `${entries.length} rules: ${count('pass')} pass, ${count('fail')} fail, ${count('not-observable')} not observable (n/o)`;
}
