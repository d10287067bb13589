/**
 * Functions short enough to read at once: no exported function of server/, client/, cli/ or the
 * shared runtime (runtime/) is longer than MAX_LINES lines, counted from its declaration to its
 * closing brace with the TypeScript compiler's own parse. A longer one is split by role.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The longest an exported function may be, in lines. */
const MAX_LINES = 60;
const FOLDERS = ['server', 'client', 'cli', 'runtime'];

/** Exported functions that may stay longer, each with why. */
const ALLOWED: Record<string, string> = {};

/** The sources of a folder: .ts files outside dist/ and node_modules/, declarations left out. */
function sources(dir: string): string[] {
  return (readdirSync(join(root, dir), { recursive: true }) as string[])
    .map((f) => `${dir}/${f.split('\\').join('/')}`)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !/\/(dist|node_modules)\//.test(f));
}

const isExported = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** Every exported function of one file (declarations, and consts holding an arrow or function expression) with its length in lines. */
export function exportedFunctions(file: string, text: string): { name: string; lines: number }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = (node: ts.Node) =>
    source.getLineAndCharacterOfPosition(node.getEnd()).line - source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const found: { name: string; lines: number }[] = [];
  for (const statement of source.statements) {
    if (!isExported(statement)) continue;
    if (ts.isFunctionDeclaration(statement) && statement.body) found.push({ name: statement.name?.text ?? 'default', lines: lines(statement) });
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) && ts.isIdentifier(declaration.name)) {
          found.push({ name: declaration.name.text, lines: lines(declaration) });
        }
      }
    }
  }
  return found;
}

describe('exported functions of server/, client/ and runtime/', () => {
  it(`are at most ${MAX_LINES} lines long`, () => {
    const offenders = FOLDERS.flatMap(sources).flatMap((file) =>
      exportedFunctions(file, readFileSync(join(root, file), 'utf8'))
        .filter(({ name, lines }) => lines > MAX_LINES && ALLOWED[`${file}#${name}`] === undefined)
        .map(({ name, lines }) => `${file}#${name}: ${lines} lines`),
    );
    expect(offenders).toEqual([]);
  });

  it('the count sees a long exported function, a long exported arrow, and not an unexported one', () => {
    const body = Array.from({ length: MAX_LINES }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = `export function long() {\n${body}\n}\nexport const arrow = () => {\n${body}\n};\nfunction inner() {\n${body}\n}\n`;
    expect(exportedFunctions('x.ts', text)).toEqual([
      { name: 'long', lines: MAX_LINES + 2 },
      { name: 'arrow', lines: MAX_LINES + 2 },
    ]);
  });

  it('allows only functions that exist', () => {
    const stale = Object.keys(ALLOWED).filter((entry) => {
      const [file, name] = entry.split('#') as [string, string];
      return !exportedFunctions(file, readFileSync(join(root, file), 'utf8')).some((f) => f.name === name);
    });
    expect(stale).toEqual([]);
  });
});
