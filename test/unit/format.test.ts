/**
 * The formatter keeps the lines: every source file Prettier formats (its own ignore files, the
 * repository's .gitignore and .prettierignore, decide which) is as `npm run format` writes it.
 * Run through Prettier's API, so the unit tier starts no process; `npm run format` mends a failure.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE = /\.(ts|mts|js|mjs|cjs)$/;
/** Folders no source of ours is in (dependencies, build output, reports, scratch). */
const SKIPPED = new Set(['node_modules', 'dist', '.git', '.tmp', '.stryker-tmp', 'reports', 'coverage', 'test-output', '.bench-profiles']);

/** Every source file below `dir`, as paths from the repository's root. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sources(join(dir, entry.name));
    return SOURCE.test(entry.name) ? [relative(root, join(dir, entry.name))] : [];
  });
}

/** The files of `files` Prettier would change (those its ignore files leave out are not asked). */
async function unformatted(files: readonly string[]): Promise<string[]> {
  const ignorePath = [join(root, '.gitignore'), join(root, '.prettierignore')];
  const changed: string[] = [];
  for (const file of files) {
    const path = join(root, file);
    const info = await prettier.getFileInfo(path, { ignorePath });
    if (info.ignored || !info.inferredParser) continue;
    const options = { ...(await prettier.resolveConfig(path)), filepath: path };
    if (!(await prettier.check(readFileSync(path, 'utf8'), options))) changed.push(file);
  }
  return changed;
}

describe('the formatter', () => {
  it('leaves every source file as it is (npm run format)', { timeout: 120_000 }, async () => {
    const files = sources(root);
    expect(files.length).toBeGreaterThan(300);
    expect(await unformatted(files)).toEqual([]);
  });

  it('sees a file it would change', async () => {
    const options = { ...(await prettier.resolveConfig(join(root, 'client/index.ts'))), filepath: join(root, 'client/index.ts') };
    expect(await prettier.check('export const a = {b:1}\n', options)).toBe(false);
    expect(await prettier.check('export const a = { b: 1 };\n', options)).toBe(true);
  });
});
