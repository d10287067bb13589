/**
 * The lines ARCHITECTURE.md draws around client/: it never imports server/, and nothing
 * outside client/webhooks/ and client/cli/ imports a Node built-in (the client runs in
 * browsers); only the CLI's config.ts reads process.env.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const clientDir = join(root, 'client');

const files = (readdirSync(clientDir, { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(clientDir, f));

const specifiers = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(/(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm)].map(
    (m) => (m[1] ?? m[2]) as string,
  );

const builtins = new Set(builtinModules);
const isBuiltin = (s: string) => s.startsWith('node:') || builtins.has(s.split('/')[0] ?? s);
const browserSide = (file: string) => !/^(webhooks|cli)\//.test(relative(clientDir, file).split('\\').join('/'));

describe('client/ boundaries', () => {
  it('finds the client sources', () => {
    expect(files.map((f) => relative(root, f))).toEqual(expect.arrayContaining(['client/sessions-client.ts', 'client/cli/main.ts']));
  });

  it('never imports server/', () => {
    const offenders = files.flatMap((file) =>
      specifiers(file)
        .filter((s) => s.startsWith('.') && relative(root, resolve(dirname(file), s)).startsWith('server'))
        .map((s) => `${relative(root, file)} → ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it('imports no Node built-in outside client/webhooks/ and client/cli/', () => {
    const offenders = files
      .filter(browserSide)
      .flatMap((file) => specifiers(file).filter(isBuiltin).map((s) => `${relative(root, file)} → ${s}`));
    expect(offenders).toEqual([]);
    expect(isBuiltin('node:fs') && isBuiltin('crypto') && !isBuiltin('openapi-fetch')).toBe(true);
  });

  it('reads process.env only in client/cli/config.ts', () => {
    const readers = files.filter((f) => /process\.env/.test(readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')));
    expect(readers.map((f) => relative(root, f))).toEqual(['client/cli/config.ts']);
  });
});
