/**
 * Defaults written once, where tools read them: every optional property of an exported
 * `*Options` interface in client/, server/ and runtime/ carries a TSDoc `@defaultValue`
 * (pointing at its `DEFAULT_*` constant where one exists, with a `{@link}` the file can
 * resolve) and no "(default …)" prose beside it, read with the TypeScript compiler's own parse.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['client', 'server', 'runtime'];

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

/** The names a file declares at its top level or imports: what a `{@link}` in it resolves to. */
function namesInScope(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const bindings = clause?.namedBindings;
      if (clause?.name) names.add(clause.name.text);
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) names.add(element.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text);
    } else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node)) {
      names.add((statement.name as ts.Identifier).text);
    }
  }
  return names;
}

/** What is wrong with the documented defaults of one file's exported `*Options` interfaces, one line each. */
export function defaultProblems(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const scope = namesInScope(source);
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
      for (const [, name] of doc.matchAll(/@defaultValue[^\n]*?\{@link\s+([\w$]+)/g)) {
        if (!scope.has(name!)) problems.push(`${where} links ${name} in @defaultValue, which the file neither declares nor imports`);
      }
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
      '  /**',
      '   * Size.',
      '   * @defaultValue {@link DEFAULT_SIZE} (2), declared elsewhere',
      '   */',
      '  size?: number;',
      '}',
      'const DEFAULT_TRIES = 3;',
    ].join('\n');
    expect(defaultProblems('demo.ts', text)).toEqual([
      'demo.ts: DemoOptions.waitMs writes its default in prose; move it to @defaultValue',
      'demo.ts: DemoOptions.waitMs has no @defaultValue',
      'demo.ts: DemoOptions.size links DEFAULT_SIZE in @defaultValue, which the file neither declares nor imports',
    ]);
  });

  it('every optional option in client/, server/ and runtime/ carries @defaultValue and no "(default …)" prose', () => {
    const problems = FOLDERS.flatMap(sources).flatMap((file) => defaultProblems(file, readFileSync(join(root, file), 'utf8')));
    expect(problems).toEqual([]);
  });
});
