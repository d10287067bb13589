/**
 * The report of the graders (`webhook grade`, `client grade`): one verdict per rule, one line
 * each (or one JSON object with --json), and a closing count.
 */

/** How a check went. */
export interface Verdict {
  grade: 'pass' | 'fail' | 'n/o';
  /** What was sent and what was answered (or that nothing was). */
  evidence: string;
  /** For a failure: what the service does about it, by its retry rules (the text report says it once per run). */
  next?: string;
}

/** One graded rule, as `--json` prints it (one object per line). */
export interface GradeEntry<Rule extends string = string> extends Verdict {
  rule: Rule;
  title: string;
}

const MARK = { pass: 'pass', fail: 'FAIL', 'n/o': 'n/o' } as const;

/**
 * The text report's line for each entry: mark, rule id, evidence, and what the service does
 * about a failure the first time that sentence applies (later failures point back to it).
 */
export function createGradeLineFormatter(): (entry: GradeEntry) => string {
  const said = new Map<string, string>();
  return (entry) => {
    let next = '';
    if (entry.next !== undefined) {
      const first = said.get(entry.next);
      if (first === undefined) said.set(entry.next, entry.rule);
      next = first === undefined ? ` ${entry.next}` : ` The service retries it as said under ${first}.`;
    }
    return `${MARK[entry.grade].padEnd(5)} ${entry.rule.padEnd(25)} ${entry.evidence}${next}`;
  };
}

/** The closing line: how many rules passed, failed, could not be observed. */
export function formatGradeSummary(entries: readonly GradeEntry[]): string {
  const count = (grade: Verdict['grade']) => entries.filter((e) => e.grade === grade).length;
  return `${entries.length} rules: ${count('pass')} pass, ${count('fail')} fail, ${count('n/o')} not observable (n/o)`;
}
