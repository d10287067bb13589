/**
 * Defaults written once, where tools read them: every optional property of an exported
 * `*Options` interface in client/ carries a TSDoc `@defaultValue` (pointing at its `DEFAULT_*`
 * constant where one exists) and no "(default …)" prose beside it, read with the TypeScript
 * compiler's own parse.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['client'];

/** The sources of a folder: .ts files outside dist/ and node_modules/, declarations left out. */
function sources(dir: string): string[] {
  return (readdirSync(join(root, dir), { recursive: true }) as string[])
    .map((f) => `${dir}/${f.split('\\').join('/')}`)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !/\/(dist|node_modules)\//.test(f));
}

const isExported = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The TSDoc text of a node, tags included, as written. */
function docText(node: ts.Node, source: ts.SourceFile): string {
  return ts
    .getJSDocCommentsAndTags(node)
    .filter(ts.isJSDoc)
    .map((doc) => source.text.slice(doc.getStart(source), doc.getEnd()))
    .join('\n');
}

/** What is wrong with the documented defaults of one file's exported `*Options` interfaces, one line each. */
export function defaultProblems(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const problems: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isInterfaceDeclaration(statement) || !isExported(statement) || !statement.name.text.endsWith('Options')) continue;
    for (const member of statement.members) {
      if (!ts.isPropertySignature(member) && !ts.isMethodSignature(member)) continue;
      if (!member.questionToken) continue;
      const where = `${file}: ${statement.name.text}.${member.name.getText(source)}`;
      const doc = docText(member, source);
      if (/\(defaults?\b/i.test(doc)) problems.push(`${where} writes its default in prose; move it to @defaultValue`);
      if (!/@defaultValue\b/.test(doc)) problems.push(`${where} has no @defaultValue`);
    }
  }
  return problems;
}

describe('documented defaults', () => {
  it('flags prose defaults and a missing @defaultValue (the check can fail)', () => {
    const text = [
      'export interface DemoOptions {',
      '  /** Wait in ms (default 5). */',
      '  waitMs?: number;',
      '  /**',
      '   * Tries.',
      '   * @defaultValue {@link DEFAULT_TRIES} (3)',
      '   */',
      '  tries?: number;',
      '  /** Required ones need none. */',
      '  name: string;',
      '}',
    ].join('\n');
    expect(defaultProblems('demo.ts', text)).toEqual([
      'demo.ts: DemoOptions.waitMs writes its default in prose; move it to @defaultValue',
      'demo.ts: DemoOptions.waitMs has no @defaultValue',
    ]);
  });

  it('every optional option in client/ carries @defaultValue and no "(default …)" prose', () => {
    const problems = FOLDERS.flatMap(sources).flatMap((file) => defaultProblems(file, readFileSync(join(root, file), 'utf8')));
    expect(problems).toEqual([]);
  });
});
