/**
 * Defaults written once, where tools read them: every optional property of an exported
 * `*Options` or `*Settings` interface (a part of the options several factories take) in
 * client/, cli/, server/ and runtime/ carries a TSDoc `@defaultValue` (pointing at its `DEFAULT_*`
 * constant where one exists, with a `{@link}` the file can resolve) and no "(default …)" prose
 * beside it, read with the TypeScript compiler's own parse.
 * A literal restated beside a link, `{@link DEFAULT_X} (1000)`, is what a reader of the API
 * sees (the entry may not export the constant): it must be the constant's value.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['client', 'cli', 'server', 'runtime'];

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

/** What is wrong with the documented defaults of one file's exported `*Options` and `*Settings` interfaces, one line each. */
export function defaultProblems(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const scope = namesInScope(source);
  const problems: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isInterfaceDeclaration(statement) || !isExported(statement) || !/(Options|Settings)$/.test(statement.name.text)) continue;
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

/** One `@defaultValue {@link NAME}`.path` (literal …)` of a file. */
interface LinkedDefault {
  file: string;
  name: string;
  path: string[];
  literal: string;
}

/** The linked defaults of a file that restate a literal (a number, or a quoted string). */
export function linkedDefaults(file: string, text: string): LinkedDefault[] {
  const found: LinkedDefault[] = [];
  for (const [, name, path, literal] of text.matchAll(/@defaultValue \{@link ([\w$]+)\}((?:`\.\w+`)*) \(([^)\n]*)/g)) {
    if (/^(`'|\d)/.test(literal!)) found.push({ file, name: name!, path: [...path!.matchAll(/\.(\w+)/g)].map((m) => m[1]!), literal: literal! });
  }
  return found;
}

/** The value a restated literal states: `'x'` in backticks, or a number (`100 000`, `1 MiB`, `3600: an hour`). */
export function literalValue(literal: string): string | number | undefined {
  const quoted = /^`'([^']*)'`/.exec(literal);
  if (quoted) return quoted[1];
  const number = /^(\d+(?: \d{3})*)(?: (KiB|MiB))?(?![\d ]*\d)/.exec(literal);
  if (!number) return undefined;
  const unit = number[2] === 'MiB' ? 1024 * 1024 : number[2] === 'KiB' ? 1024 : 1;
  return Number(number[1]!.replace(/ /g, '')) * unit;
}

/** The module a name in `file` comes from: the file itself, or the one it imports the name from. */
function moduleOf(file: string, text: string, name: string): string {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings) || !bindings.elements.some((e) => e.name.text === name)) continue;
    const specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
    const runtime = '@session-resume-api/runtime/';
    if (specifier.startsWith(runtime)) return join(root, 'runtime', runtimeExports[`./${specifier.slice(runtime.length)}`]!);
    return join(root, file, '..', specifier.replace(/\.js$/, '.ts'));
  }
  return join(root, file);
}

const runtimeExports = JSON.parse(readFileSync(join(root, 'runtime/package.json'), 'utf8')).exports as Record<string, string>;

describe('documented defaults', () => {
  it('reads the literal a link restates', () => {
    expect(
      linkedDefaults(
        'f.ts',
        ' * @defaultValue {@link A} (100 000)\n * @defaultValue {@link B}`.count` (1000 jobs, at most 3600 s)\n * @defaultValue {@link C} (the example)',
      ),
    ).toEqual([
      { file: 'f.ts', name: 'A', path: [], literal: '100 000' },
      { file: 'f.ts', name: 'B', path: ['count'], literal: '1000 jobs, at most 3600 s' },
    ]);
    expect(['100 000', '1 MiB', '86 400: 24 h', "`'webhook-events'`", '1000 jobs, at most 3600 s', '50'].map(literalValue)).toEqual([
      100_000,
      1_048_576,
      86_400,
      'webhook-events',
      1000,
      50,
    ]);
  });

  it("every literal restated beside a {@link} is the linked constant's value", async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const file of FOLDERS.flatMap(sources)) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const linked of linkedDefaults(file, text)) {
        const module = (await import(moduleOf(file, text, linked.name))) as Record<string, unknown>;
        const value = linked.path.reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], module[linked.name]);
        checked++;
        if (value !== literalValue(linked.literal))
          wrong.push(`${file}: {@link ${linked.name}} says (${linked.literal}); the value is ${JSON.stringify(value)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

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
