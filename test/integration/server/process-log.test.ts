/**
 * The process log holds a turn's lines for one write: every line still reaches stdout, in order,
 * whether the process exits in the same turn (process.exit) or lives on.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

function runLogging(script: string): Promise<string[]> {
  const source = `import { createProcessLogger } from './server/start-up/process-logger.ts';\nconst logger = createProcessLogger({ level: 'info' });\n${script}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) =>
    child.once('exit', () =>
      resolve(
        out
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { msg: string }).msg),
      ),
    ),
  );
}

describe('process log', () => {
  it('writes every line of a turn that ends in process.exit, in order', async () => {
    expect(await runLogging(`for (let i = 1; i <= 3; i++) logger.info('line ' + i);\nprocess.exit(0);`)).toEqual(['line 1', 'line 2', 'line 3']);
  });

  it('writes lines spread over turns, and more than one buffer of them in a turn, in order', async () => {
    const script = `logger.info('first');\nsetTimeout(() => { for (let i = 0; i < 300; i++) logger.info('bulk ' + i); setTimeout(() => logger.info('last'), 20); }, 20);`;
    const lines = await runLogging(script);
    expect(lines).toEqual(['first', ...Array.from({ length: 300 }, (_, i) => `bulk ${i}`), 'last']);
  });
});
