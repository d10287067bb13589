/**
 * No import circle in the packages' sources (client/, server/, runtime/), type-only imports
 * included: a circle makes a module's meaning depend on which file is loaded first, and two
 * files that need each other are one responsibility split in two. Imports are read with
 * TypeScript's own pre-processor (`ts.preProcessFile`), relative ones and the shared runtime's
 * package name resolved to their sources.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const RUNTIME = '@session-resume-api/runtime/';
const runtimeExports = JSON.parse(readFileSync(join(root, 'runtime/package.json'), 'utf8')).exports as Record<string, string>;

const sources = (dir: string) =>
  (readdirSync(join(root, dir), { recursive: true }) as string[])
    .map((f) => `${dir}/${f.split('\\').join('/')}`)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.includes('node_modules/') && !f.includes('/dist/'));

/** The repository files `file` imports (type-only imports and re-exports included). */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
  return importedFiles.flatMap(({ fileName: specifier }) => {
    if (specifier.startsWith('.'))
      return [
        relative(root, resolve(root, dirname(file), specifier))
          .split('\\')
          .join('/')
          .replace(/\.js$/, '.ts'),
      ];
    const runtimeSource = specifier.startsWith(RUNTIME) ? runtimeExports[`./${specifier.slice(RUNTIME.length)}`] : undefined;
    return runtimeSource ? [`runtime/${runtimeSource.replace(/^\.\//, '')}`] : [];
  });
}

/** Each circle of `graph`, as the files along it (the first repeated at the end), found by depth-first search. */
function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const circles: string[][] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return circles;
}

describe('import circles', () => {
  it('finds a circle of two files and one of three, and none in a chain', () => {
    expect(
      circlesOf(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'a']]);
    expect(
      circlesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c', 'a']]);
    expect(
      circlesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads type-only imports and re-exports as imports', () => {
    const graph = new Map(sources('client/webhooks').map((file) => [file, importsOf(file)]));
    expect(graph.get('client/webhooks/index.ts')).toContain('client/webhooks/receiver.ts');
    expect(graph.get('client/webhooks/receiver-options.ts')).toContain('client/webhooks/node-handler.ts');
  });

  it('none among the sources of client/, server/ and runtime/', () => {
    const files = ['client', 'server', 'runtime'].flatMap(sources);
    const graph = new Map(files.map((file) => [file, importsOf(file)]));
    expect(circlesOf(graph).map((circle) => circle.join(' → '))).toEqual([]);
  });
});
