/**
 * The footprint group of `npm run bench`: runs bench/footprint.ts in its own process (it needs
 * `--expose-gc` for exact heap figures and a process of its own to measure) and renders what it
 * prints as a BENCHMARKS.md section with the command that reproduces it.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The section, measured now. */
export async function runFootprintSection(): Promise<string> {
  const script = fileURLToPath(new URL('footprint.ts', import.meta.url));
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', script], { maxBuffer: 1 << 20, timeout: 600_000 });
  return [
    '## footprint',
    '',
    'What each request leaves in Redis and what the memory store grows by (docs/bounds.md), from',
    '`node --expose-gc --import tsx bench/footprint.ts` (a private redis-server):',
    '',
    '```text',
    stdout.trim(),
    '```',
    '',
  ].join('\n');
}
