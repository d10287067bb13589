/**
 * `client grade` against clients written with other libraries (client-witnesses.ts), each run
 * by `client grade --run --json` exactly as a user runs it: every rule's verdict is the one the
 * library's documented behaviour earns, written down before the grader ran. A difference is a
 * false verdict of the grader, or an expectation to correct with the documentation that says
 * so. docs/client.md shows the same table.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLIENT_WITNESSES, renderWitnessTable, type ClientWitness, type Grade } from './client-witnesses.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Whether the witness's runtime is on this machine (python3 with urllib3, curl); node always is. */
function available(witness: ClientWitness): boolean {
  const probe: Record<string, [string, string[]]> = { python3: ['python3', ['-c', 'import urllib3']], sh: ['curl', ['--version']] };
  const found = probe[witness.run.split(' ')[0] as string];
  if (!found) return true;
  try {
    execFileSync(found[0], found[1], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The verdict per rule of one graded run. */
function grade(witness: ClientWitness): Promise<{ grades: Record<string, Grade>; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', 'cli/main.ts', 'client', 'grade', '--json', '--run', witness.run],
      { cwd: root, timeout: 240_000 },
      (_error, stdout, stderr) => {
        const entries = stdout
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { rule: string; grade: Grade; evidence: string });
        resolve({ grades: Object.fromEntries(entries.map((e) => [e.rule, e.grade])), output: `${stdout}${stderr.slice(-2000)}` });
      },
    );
  });
}

describe.concurrent('client grade graded against other libraries', () => {
  for (const witness of CLIENT_WITNESSES) {
    it.skipIf(!available(witness))(`${witness.name}: every rule as its documentation says`, { timeout: 260_000 }, async () => {
      const { grades, output } = await grade(witness);
      expect(grades, output).toEqual(witness.expected);
    });
  }

  it('docs/client.md shows the table of expected verdicts', () => {
    expect(readFileSync(`${root}/docs/client.md`, 'utf8')).toContain(renderWitnessTable());
  });
});
