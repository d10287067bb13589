/**
 * The witness suite of `webhook grade`: receivers written with other libraries and languages,
 * graded as a user runs the command. Each one's verdict per rule was written down first, from
 * the library's documented behaviour (cited where the receiver is written), before the grader
 * ran; a mismatch is a grader bug or, with a citation, a wrong expectation. docs/receiver.md
 * ("Graded against other libraries") shows the same table: a test keeps them equal.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DELIVERY_RULES, type DeliveryRuleId } from '@session-resume-api/runtime/delivery/delivery-rules';
import { WITNESSES, witnessRows, type Grade, type Target } from './receiver-witnesses.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'witness-'));
const stops: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Entry {
  rule: DeliveryRuleId;
  grade: string;
  evidence: string;
}

function grade(target: Target): Promise<{ code: number; entries: Entry[]; stderr: string }> {
  const args = [
    'cli/bin/session-resume-api.js',
    'webhook',
    'grade',
    ...target.urls,
    '--insecure-localhost',
    '--json',
    '--delay-ms',
    '200',
    '--settle-ms',
    '1000',
    ...target.args,
  ];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: root, timeout: 90_000 }, (error, stdout, stderr) => {
      const entries = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Entry);
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, entries, stderr });
    });
  });
}

const spelled = (grade: string): Grade => (grade === 'pass' ? 'pass' : grade === 'fail' ? 'FAIL' : 'n/o');

describe('webhook grade against receivers of other libraries', () => {
  it.each(WITNESSES.map((w) => [w.library, w] as const))('%s: every rule graded as expected', { timeout: 120_000 }, async (_name, witness) => {
    const run = await grade(await witness.start({ dir, stops }));
    const graded = Object.fromEntries(run.entries.map((e) => [e.rule, spelled(e.grade)]));
    const expected = Object.fromEntries(DELIVERY_RULES.map((r) => [r.id, witness.expected[r.id] ?? 'pass']));
    expect(graded, JSON.stringify(run.entries, null, 1)).toEqual(expected);
    expect(run.code).toBe(Object.values(expected).includes('FAIL') ? 1 : 0);
  });

  it('docs/receiver.md shows the same table', () => {
    const page = readFileSync(join(root, 'docs/receiver.md'), 'utf8');
    const start = page.indexOf('## Graded against other libraries');
    const end = page.indexOf('\n## ', start + 1);
    const section = page.slice(start, end < 0 ? undefined : end);
    const rows = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| library') && !line.startsWith('|---'));
    expect(rows).toEqual(witnessRows());
  });
});
