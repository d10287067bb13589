/**
 * The shell examples of the documentation as test steps: a fenced block tagged ```sh test (or
 * another tag) holds commands, each followed by `# ` lines its output must show (`…` matches
 * anything) and optionally `# exit N`.
 */

/** One command of a tested block and what its output must show. */
export interface Step {
  command: string;
  expected: string[];
  exitCode?: number;
}

/** The ```sh <tag> blocks of a Markdown file, as steps (exports first, kept for the next commands). */
export function testedSteps(markdown: string, tag = 'test'): Step[][] {
  const blocks = [...markdown.matchAll(new RegExp(`^\`\`\`sh ${tag}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1] ?? '');
  return blocks.map((block) => {
    const steps: Step[] = [];
    let pending = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('# ')) {
        const step = steps.at(-1);
        if (!step) throw new Error(`expectation before any command: ${line}`);
        const exit = /^# exit (\d+)$/.exec(line);
        if (exit) step.exitCode = Number(exit[1]);
        else step.expected.push(line.slice(2));
      } else if (line.trim()) {
        pending += line.endsWith('\\') ? `${line.slice(0, -1)} ` : line;
        if (!line.endsWith('\\')) {
          steps.push({ command: pending, expected: [] });
          pending = '';
        }
      }
    }
    return steps;
  });
}

/** `…` in an expected line matches anything (in order). */
export function matches(output: string, expected: string): boolean {
  const pattern = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(pattern).test(output);
}
