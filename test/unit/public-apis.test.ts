/**
 * Dependencies are used through their documented API only (docs/architecture.md, "Lines never
 * crossed"): no source under server/, client/, runtime/ or tools/ imports a package's internal files
 * (`pkg/dist/…`, `pkg/lib/…`, `pkg/build/…`; the entry points a package documents are listed
 * below), and none assigns to a member or prototype of an imported binding. TypeScript's parser
 * finds the imports and the assignments, aliases of an imported binding included.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Internal paths a package documents as an entry point (with its README line). */
const DOCUMENTED_ENTRY_POINTS = new Set([
  // Ajv's docs, "JSON Schema draft-2020-12": import Ajv2020 from "ajv/dist/2020".
  'ajv/dist/2020',
  'ajv/dist/2020.js',
  // Ajv's docs, "Standalone validation code": const standaloneCode = require("ajv/dist/standalone").default.
  'ajv/dist/standalone',
  'ajv/dist/standalone/index.js',
]);

/** Path segments that name a package's built or private files. */
const INTERNAL_SEGMENTS = new Set(['dist', 'lib', 'build', 'src', 'cjs', 'esm', 'internal', 'internals']);

/** Calls that change their first argument's members. */
const MUTATING_CALLS = new Set([
  'Object.assign',
  'Object.defineProperty',
  'Object.defineProperties',
  'Object.setPrototypeOf',
  'Reflect.set',
  'Reflect.defineProperty',
  'Reflect.deleteProperty',
  'Reflect.setPrototypeOf',
]);

const ASSIGNMENTS = new Set([
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.PlusEqualsToken,
  ts.SyntaxKind.MinusEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
]);

/** Redis commands that read or write a key's contents (ioredis method names, lower case). */
const KEY_COMMANDS =
  /^(z(range|rangebyscore|revrange|revrangebyscore|rangebylex|score|mscore|count|card|rank|revrank|rem|add|popmin|popmax|randmember|scan|rangestore|union|unionstore|inter|interstore|diff|diffstore)|l(range|len|index|pos|rem|push|pop)|r(push|pop|poplpush)|lmove|h(get|getall|mget|keys|vals|len|exists|scan|set|del)|s(members|card|ismember|scan)|x(range|revrange|len|read)|get|mget|exists|type|ttl|pttl|object|dump|memory|scan|keys)$/i;

/** The last segment of a key BullMQ keeps for a queue (its storage layout, not its API). */
const BULLMQ_KEY =
  /(^|:)(wait|waiting|active|delayed|completed|failed|paused|prioritized|meta|events|stalled|stalled-check|marker|pc|limiter|repeat|de|waiting-children|id)$/;

/** Whether `node` names one of a dependency's keys: a `.toKey(…)` call, a BullMQ key literal, or a name bound to one. */
function namesDependencyKey(node: ts.Expression, keyNames: Set<string>, file: ts.SourceFile): boolean {
  if (ts.isIdentifier(node)) return keyNames.has(node.text);
  if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'toKey') return true;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return BULLMQ_KEY.test(node.text) && node.text.includes(':');
  if (ts.isTemplateExpression(node)) return BULLMQ_KEY.test(node.getText(file).replace(/`$/, ''));
  return false;
}

/** BullMQ's score of a delayed job is its time × 0x1000: arithmetic or a name with that factor reads its encoding. */
function isScoreEncoding(node: ts.Node, file: ts.SourceFile): boolean {
  if (!ts.isNumericLiteral(node) || Number(node.text) !== 0x1000) return false;
  const parent = node.parent;
  if (ts.isBinaryExpression(parent) && [ts.SyntaxKind.AsteriskToken, ts.SyntaxKind.SlashToken].includes(parent.operatorToken.kind)) return true;
  return ts.isVariableDeclaration(parent) && /score/i.test(parent.name.getText(file));
}

/** Reads of a dependency's storage layout: its key names (`.toKey`), raw commands on them, its score encoding. */
function layoutReads(file: ts.SourceFile, where: (node: ts.Node) => string): string[] {
  const problems: string[] = [];
  const keyNames = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'toKey') {
      problems.push(`${where(node)}: reads a dependency's key name (${node.expression.getText(file)})`);
    }
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && namesDependencyKey(node.initializer, keyNames, file))
      keyNames.add(node.name.text);
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && KEY_COMMANDS.test(node.expression.name.text)) {
      const first = node.arguments[0];
      if (first && namesDependencyKey(first, keyNames, file))
        problems.push(`${where(node)}: runs ${node.expression.name.text} on a dependency's key (${first.getText(file)})`);
    }
    if (isScoreEncoding(node, file)) problems.push(`${where(node)}: relies on a dependency's score encoding (${node.parent.getText(file)})`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return problems;
}

/** `pkg/sub/path` → whether the sub-path is a package's internal file (relative and `node:` specifiers are not packages). */
function isInternalPath(specifier: string): boolean {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return false;
  if (DOCUMENTED_ENTRY_POINTS.has(specifier)) return false;
  const parts = specifier.split('/');
  const subPath = parts.slice(specifier.startsWith('@') ? 2 : 1);
  return subPath.some((segment) => INTERNAL_SEGMENTS.has(segment));
}

/** The identifier an expression such as `a.b.c`, `a['b']`, `(a as X).b` or `a!.b` starts from. */
function rootIdentifier(node: ts.Expression): ts.Identifier | undefined {
  let current: ts.Expression = node;
  for (;;) {
    if (ts.isIdentifier(current)) return current;
    if (ts.isPropertyAccessExpression(current) || ts.isElementAccessExpression(current)) current = current.expression;
    else if (ts.isParenthesizedExpression(current) || ts.isAsExpression(current) || ts.isNonNullExpression(current)) current = current.expression;
    else if (ts.isSatisfiesExpression(current) || ts.isTypeAssertionExpression(current)) current = current.expression;
    else return undefined;
  }
}

/** The local names an import declaration binds from a package (not relative files). */
function importedNames(statement: ts.ImportDeclaration): string[] {
  const specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
  const clause = statement.importClause;
  if (specifier.startsWith('.') || !clause || clause.isTypeOnly) return [];
  const names = clause.name ? [clause.name.text] : [];
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) names.push(bindings.name.text);
  if (bindings && ts.isNamedImports(bindings)) names.push(...bindings.elements.filter((e) => !e.isTypeOnly).map((e) => e.name.text));
  return names;
}

/** Every string-literal module specifier of the file: imports, re-exports, `import()` and `require()`. */
function moduleSpecifiers(file: ts.SourceFile): ts.StringLiteral[] {
  const found: ts.StringLiteral[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier);
    } else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0]!)) {
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if (isImport || isRequire) found.push(node.arguments[0] as ts.StringLiteral);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** What a change to `target` is, when its root is an imported binding (or an alias of one). */
function mutationOf(target: ts.Expression, imported: Set<string>): string | undefined {
  if (ts.isIdentifier(target)) return undefined; // rebinding a local name changes nothing in the package
  const name = rootIdentifier(target)?.text;
  return name !== undefined && imported.has(name) ? name : undefined;
}

/** Problems with the file's use of its dependencies, each as `file:line: what`. */
function checkSource(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const where = (node: ts.Node) => `${fileName}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const problems = moduleSpecifiers(file)
    .filter((s) => isInternalPath(s.text))
    .map((s) => `${where(s)}: imports a package's internal file '${s.text}'`);
  const imported = new Set(file.statements.filter(ts.isImportDeclaration).flatMap(importedNames));
  const visit = (node: ts.Node): void => {
    // An alias of an imported binding or of its members (const proto = Foo.prototype) is watched too.
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && mutationOf(node.initializer, imported) !== undefined) {
      imported.add(node.name.text);
    }
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      ts.isIdentifier(node.initializer) &&
      imported.has(node.initializer.text)
    ) {
      imported.add(node.name.text);
    }
    if (ts.isBinaryExpression(node) && ASSIGNMENTS.has(node.operatorToken.kind)) {
      const name = mutationOf(node.left, imported);
      if (name) problems.push(`${where(node)}: assigns to a member of the imported '${name}' (${node.left.getText(file)})`);
    }
    if (ts.isDeleteExpression(node)) {
      const name = mutationOf(node.expression, imported);
      if (name) problems.push(`${where(node)}: deletes a member of the imported '${name}'`);
    }
    if (ts.isCallExpression(node) && MUTATING_CALLS.has(node.expression.getText(file)) && node.arguments[0]) {
      const first = node.arguments[0];
      const name = ts.isIdentifier(first) ? (imported.has(first.text) ? first.text : undefined) : mutationOf(first, imported);
      if (name) problems.push(`${where(node)}: ${node.expression.getText(file)} changes the imported '${name}'`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return [...problems, ...layoutReads(file, where)];
}

/** Every source under `dir` (TypeScript and JavaScript), build output, installed packages and tests left out. */
function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sources(path);
    return /\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('dependencies through their documented API only', () => {
  const files = ['server', 'client', 'cli', 'runtime', 'tools'].flatMap(sources);

  it('finds the sources', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'server/app.ts',
        'client/index.ts',
        'cli/main.ts',
        'runtime/contract.ts',
        'server/bin/session-resume-api-server.js',
        'cli/bin/session-resume-api.js',
      ]),
    );
  });

  it('no source imports a package internal file or changes an imported binding', () => {
    const problems = files.flatMap((f) => checkSource(f, readFileSync(join(root, f), 'utf8')));
    expect(problems).toEqual([]);
  });

  it('the check fails on each kind of reach into a dependency', () => {
    const fixture = [
      "import schemaValidatorModule from 'express-openapi-validator/dist/framework/openapi.schema.validator.js';",
      "import express from 'express';",
      "import * as OpenApiValidator from 'express-openapi-validator';",
      "import { SchemaPreprocessor } from '@scope/pkg/lib/preprocessor.js';",
      "import { Job } from 'bullmq';",
      "import type { Thing } from 'other/build/types';",
      "const util = await import('express-openapi-validator/dist/middlewares/util.js');",
      'schemaValidatorModule.OpenAPISchemaValidator = class {};',
      'SchemaPreprocessor.prototype.resolveSchema = () => undefined;',
      'express.response.json = () => undefined;',
      'const proto = Job.prototype;',
      'proto.addJob = () => undefined;',
      '(OpenApiValidator as any).middleware ??= () => [];',
      'Object.assign(express, { x: 1 });',
      "Object.defineProperty(OpenApiValidator, 'middleware', { value: 1 });",
      'delete (express as any).json;',
    ].join('\n');
    const problems = checkSource('fixture.ts', fixture);
    expect(problems).toEqual([
      "fixture.ts:1: imports a package's internal file 'express-openapi-validator/dist/framework/openapi.schema.validator.js'",
      "fixture.ts:4: imports a package's internal file '@scope/pkg/lib/preprocessor.js'",
      "fixture.ts:6: imports a package's internal file 'other/build/types'",
      "fixture.ts:7: imports a package's internal file 'express-openapi-validator/dist/middlewares/util.js'",
      "fixture.ts:8: assigns to a member of the imported 'schemaValidatorModule' (schemaValidatorModule.OpenAPISchemaValidator)",
      "fixture.ts:9: assigns to a member of the imported 'SchemaPreprocessor' (SchemaPreprocessor.prototype.resolveSchema)",
      "fixture.ts:10: assigns to a member of the imported 'express' (express.response.json)",
      "fixture.ts:12: assigns to a member of the imported 'proto' (proto.addJob)",
      "fixture.ts:13: assigns to a member of the imported 'OpenApiValidator' ((OpenApiValidator as any).middleware)",
      "fixture.ts:14: Object.assign changes the imported 'express'",
      "fixture.ts:15: Object.defineProperty changes the imported 'OpenApiValidator'",
      "fixture.ts:16: deletes a member of the imported 'express'",
    ]);
  });

  it("the check fails on reads of a dependency's storage layout: its key names, raw commands on its keys, its score encoding", () => {
    const fixture = [
      "import type { Queue } from 'bullmq';",
      'declare const queue: Queue; declare const connection: any;',
      "const delayed = queue.toKey('delayed');",
      "await connection.zrangebyscore(delayed, '0', '+inf', 'LIMIT', 0, 10);",
      "await connection.zcount(queue.toKey('wait'), 0, -1);",
      'const SCORE_PER_MS = 0x1000;',
      'const score = Date.now() * 4096;',
      "await connection.zscore('bull:webhooks:delayed', 'id');",
      'await connection.lrange(`${prefix}:webhooks:wait`, 0, -1);',
    ].join('\n');
    expect(checkSource('fixture.ts', fixture)).toEqual([
      "fixture.ts:3: reads a dependency's key name (queue.toKey)",
      "fixture.ts:4: runs zrangebyscore on a dependency's key (delayed)",
      "fixture.ts:5: runs zcount on a dependency's key (queue.toKey('wait'))",
      "fixture.ts:5: reads a dependency's key name (queue.toKey)",
      "fixture.ts:6: relies on a dependency's score encoding (SCORE_PER_MS = 0x1000)",
      "fixture.ts:7: relies on a dependency's score encoding (Date.now() * 4096)",
      "fixture.ts:8: runs zscore on a dependency's key ('bull:webhooks:delayed')",
      "fixture.ts:9: runs lrange on a dependency's key (`${prefix}:webhooks:wait`)",
    ]);
  });

  it('leaves our own keys alone', () => {
    const fixture = [
      "const keys = { held: 'p:{outbox}:held', intents: 'p:{outbox}:intents' };",
      'await connection.zcard(keys.held);',
      "await connection.zadd(keys.held, 'NX', 1, 'id');",
      "await connection.zrangebyscore(keys.intents, '-inf', 10);",
      'const bytes = 4096; const kb = size / 1024;',
    ].join('\n');
    expect(checkSource('fixture.ts', fixture)).toEqual([]);
  });

  it('leaves documented entry points, local objects and rebinding alone', () => {
    const fixture = [
      "import { Ajv2020 } from 'ajv/dist/2020.js';",
      "import express from 'express';",
      "import { helper } from './local.js';",
      'const app = express();',
      "app.locals.name = 'x';",
      'helper.value = 1;',
      'const options = { ...express.json };',
      'options.limit = 1;',
      'Object.assign({}, express);',
      'let local = 1; local = 2;',
    ].join('\n');
    expect(checkSource('fixture.ts', fixture)).toEqual([]);
  });
});
