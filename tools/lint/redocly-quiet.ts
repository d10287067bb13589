/**
 * The Redocly CLI minus the "Node.js 20 support is ending" banner it prints on every run under Node 20 (supported here).
 * @example tsx tools/lint/redocly-quiet.ts lint spec/openapi.yaml
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const redocly = fileURLToPath(new URL('../../node_modules/.bin/redocly', import.meta.url));

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
