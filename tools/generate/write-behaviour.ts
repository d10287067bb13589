/**
 * Writes generated/behaviour.js and its .d.ts: the behaviour the contract states, as deeply
 * frozen constants typed with their literal values. `RESUME_RETRY_POLICY` is the resume
 * operation's `x-retry-policy`, `WEBHOOK_DELIVERY_POLICY` the session webhook's
 * `x-delivery-policy` (docs/spec-review.md lists their fields). The client, the delivery engine,
 * the sandbox and the graders import them through `@session-resume-api/runtime/behaviour`, so a
 * number changed in the spec reaches every one of them by `npm run generate` alone.
 *
 * Usage: tsx tools/generate/write-behaviour.ts [spec] [--out DIR] [--check]
 *   spec       the OpenAPI document to read (default spec/openapi.yaml)
 *   --out DIR  write DIR/behaviour.js and DIR/behaviour.d.ts (default generated/)
 *   --check    exit 1 when the files in DIR differ from what the spec gives
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The constants written, each with where it comes from in the document and what it is. */
const POLICIES = [
  {
    name: 'RESUME_RETRY_POLICY',
    from: ['paths', '/v1/sessions/{session_id}/resume', 'post', 'x-retry-policy'],
    about: "When a client retries a resume, how it spaces the attempts and what it keeps the same on each: the resume operation's `x-retry-policy`.",
  },
  {
    name: 'WEBHOOK_DELIVERY_POLICY',
    from: ['webhooks', 'sessionEvent', 'post', 'x-delivery-policy'],
    about: "What counts as a delivered session event, when a failed one is sent again, and how receivers dedupe: the session webhook's `x-delivery-policy`.",
  },
] as const;

function readArgs(argv: string[]): { specFile: string; outDir: string; check: boolean } {
  const outAt = argv.indexOf('--out');
  const outDir = outAt >= 0 ? argv[outAt + 1] : fileURLToPath(new URL('../../generated', import.meta.url));
  if (!outDir || outDir.startsWith('--')) throw new Error('--out needs a directory');
  const positional = argv.filter((a, i) => !a.startsWith('--') && i !== outAt + 1);
  return { specFile: positional[0] ?? 'spec/openapi.yaml', outDir, check: argv.includes('--check') };
}

function pick(document: Json, path: readonly string[], specFile: string): { [key: string]: Json } {
  let node: Json | undefined = document;
  for (const key of path) node = node !== null && typeof node === 'object' && !Array.isArray(node) ? node[key] : undefined;
  if (node === null || typeof node !== 'object' || Array.isArray(node)) {
    throw new Error(`${specFile} has no object at ${path.join(' → ')}`);
  }
  return node;
}

const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k));

/** The value as JavaScript whose every object and array is frozen. */
function frozenCode(value: Json, indent: string): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    const flat = value.every((v) => v === null || typeof v !== 'object');
    return flat
      ? `Object.freeze([${value.map((v) => JSON.stringify(v)).join(', ')}])`
      : `Object.freeze([\n${value.map((v) => `${inner}${frozenCode(v, inner)},`).join('\n')}\n${indent}])`;
  }
  const lines = Object.entries(value).map(([k, v]) => `${inner}${key(k)}: ${frozenCode(v, inner)},`);
  return `Object.freeze({\n${lines.join('\n')}\n${indent}})`;
}

/** The value's type with its literal values, every member readonly (what `as const` gives). */
function literalType(value: Json, indent: string): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `readonly [${value.map((v) => literalType(v, inner)).join(', ')}]`;
  const lines = Object.entries(value).map(([k, v]) => `${inner}readonly ${key(k)}: ${literalType(v, inner)};`);
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function render(document: Json, specFile: string): { js: string; dts: string } {
  const source = specFile.replace(/^.*spec\//, 'spec/');
  const header = `// Generated from ${source} by tools/generate/write-behaviour.ts: do not edit.\n`;
  const js: string[] = [header];
  const dts: string[] = [header];
  for (const { name, from, about } of POLICIES) {
    const value = pick(document, from, specFile);
    const doc = `/** ${about} */\n`;
    js.push(`${doc}export const ${name} = ${frozenCode(value, '')};\n`);
    dts.push(`${doc}export declare const ${name}: ${literalType(value, '')};\n`);
  }
  return { js: js.join('\n'), dts: dts.join('\n') };
}

function main(): void {
  const { specFile, outDir, check } = readArgs(process.argv.slice(2));
  const files = render(parse(readFileSync(specFile, 'utf8')) as Json, specFile);
  const targets = [
    [join(outDir, 'behaviour.js'), files.js],
    [join(outDir, 'behaviour.d.ts'), files.dts],
  ] as const;
  if (!check) {
    mkdirSync(outDir, { recursive: true });
    for (const [path, text] of targets) writeFileSync(path, text);
    return;
  }
  for (const [path, text] of targets) {
    let current = '';
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      // missing: differs
    }
    if (current !== text) {
      console.error(`${path} is out of date with ${specFile}: run npm run generate`);
      process.exitCode = 1;
    }
  }
}

main();
