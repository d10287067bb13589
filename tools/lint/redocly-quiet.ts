/**
 * Runs the Redocly CLI with the given arguments and passes its output through, minus the boxed
 * "Node.js 20 support is ending" banner it prints on every run under Node 20 (the toolkit
 * supports Node ≥ 20.19). Exit code: Redocly's.
 *
 * @example tsx tools/lint/redocly-quiet.ts lint spec/openapi.yaml
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const redocly = fileURLToPath(new URL('../../node_modules/.bin/redocly', import.meta.url));

/** Removes the banner: the box drawn with ╔ … ╝ that contains "Node.js 20". */
function withoutNodeBanner(text: string): string {
  return text.replace(/[ \t]*╔[\s\S]*?Node\.js 20[\s\S]*?╝[ \t]*\n?/g, '').replace(/^\n+/, '');
}

const child = spawn(redocly, process.argv.slice(2), { stdio: ['inherit', 'inherit', 'pipe'] });
let stderr = '';
child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
child.on('close', (code) => {
  process.stderr.write(withoutNodeBanner(stderr));
  process.exitCode = code ?? 1;
});
