/** `npm run check:generated` passes on the committed files and fails once the spec is edited by hand. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const script = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts['check:generated'] as string;

/** Runs the check:generated script with the spec path replaced; resolves to the exit code. */
async function check(spec: string): Promise<number> {
  const cmd = script.replace('spec/openapi.yaml', spec);
  try {
    await run('sh', ['-c', cmd], { cwd: root, env: { ...process.env, PATH: `${root}node_modules/.bin:${process.env.PATH}` } });
    return 0;
  } catch (e) {
    return (e as { code: number }).code;
  }
}

describe('check:generated', () => {
  it('uses openapi-typescript --check against generated/api.d.ts', () => {
    expect(script).toMatch(/openapi-typescript spec\/openapi\.yaml .*generated\/api\.d\.ts.*--check/);
  });

  it('passes for the committed spec and fails after a hand edit of it', async () => {
    expect(await check('spec/openapi.yaml')).toBe(0);
    const edited = join(mkdtempSync(join(tmpdir(), 'drift-')), 'openapi.yaml');
    const spec = readFileSync(join(root, 'spec/openapi.yaml'), 'utf8');
    const handEdited = spec.replace('Whether the operation completed successfully.', 'Edited by hand.');
    expect(handEdited).not.toBe(spec);
    writeFileSync(edited, handEdited);
    expect(await check(edited)).not.toBe(0);
  });
});
