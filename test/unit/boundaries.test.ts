/**
 * The lines docs/architecture.md draws: server/ and client/ never import each other; the tools
 * (cli/) sit above the library (client/), reach it by its public entries only and never import
 * server/; runtime/ (the shared runtime under all three) imports none of them, and everyone else
 * reaches it by its package name, never by a relative climb; everything reachable from client/index.ts (the
 * browser entry) is free of Node built-ins and server dependencies; only entry points read
 * process.env. Texts users read (spec descriptions and summaries, decision texts, TSDoc of
 * the sources) state the rule itself: no section numbers of the source description, no
 * issue numbers, nothing about the authors' machines.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { authorsMachineOrSourceCitation } from '../helpers/user-facing-text.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

const sources = (dir: string) =>
  (readdirSync(join(root, dir), { recursive: true }) as string[])
    .map((f) => f.split('\\').join('/'))
    .filter((f) => f.endsWith('.ts') && !f.includes('node_modules/') && !f.startsWith('dist/'))
    .map((f) => `${dir}/${f}`);

const specifiers = (file: string) =>
  [...readFileSync(join(root, file), 'utf8').matchAll(/(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm)].map(
    (m) => (m[1] ?? m[2]) as string,
  );

/** Repo-relative path of a relative specifier, `.js` mapped back to its `.ts` source. */
const target = (file: string, s: string) =>
  relative(root, resolve(root, dirname(file), s))
    .split('\\')
    .join('/')
    .replace(/\.js$/, '.ts');

const crossings = (from: string, forbidden: string[]) =>
  sources(from).flatMap((file) =>
    specifiers(file)
      .filter((s) => s.startsWith('.') && forbidden.some((dir) => target(file, s).startsWith(`${dir}/`)))
      .map((s) => `${file} → ${s}`),
  );

const builtins = new Set(builtinModules);
const isBuiltin = (s: string) => s.startsWith('node:') || builtins.has(s.split('/')[0] ?? s);
const SERVER_ONLY = ['express', 'express-openapi-validator', 'bullmq', 'ioredis', 'pino', 'pino-http', 'express-rate-limit', 'ajv', 'yaml'];

const RUNTIME = '@session-resume-api/runtime';
const runtimeExports = JSON.parse(readFileSync(join(root, 'runtime/package.json'), 'utf8')).exports as Record<string, string>;

/** Repo-relative source of a specifier that names the shared runtime, through its `exports`. */
const runtimeTarget = (s: string) => {
  const source = s.startsWith(`${RUNTIME}/`) ? runtimeExports[`./${s.slice(RUNTIME.length + 1)}`] : undefined;
  return source && `runtime/${source.replace(/^\.\//, '')}`;
};

/** Relative specifiers of files outside runtime/ that climb into it. */
const climbsIntoRuntime = (dirs: string[]) =>
  dirs.flatMap((dir) =>
    sources(dir).flatMap((file) =>
      specifiers(file)
        .filter((s) => s.startsWith('.') && target(file, s).startsWith('runtime/'))
        .map((s) => `${file} → ${s}`),
    ),
  );

/** Every file reachable from `entry` through relative imports and runtime names (type-only ones included). */
function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length) {
    const file = queue.pop() as string;
    if (seen.has(file) || !existsSync(join(root, file))) continue;
    seen.add(file);
    for (const s of specifiers(file)) {
      const next = s.startsWith('.') ? target(file, s) : runtimeTarget(s);
      if (next) queue.push(next);
    }
  }
  return seen;
}

/**
 * server/'s layers, bottom first (docs/architecture.md): a file imports its own layer and the
 * ones below it, never one above. Each place is a folder (ending in `/`) or a file of server/.
 */
const SERVER_LAYERS: readonly { layer: string; places: readonly string[] }[] = [
  { layer: 'shared types and errors', places: ['core/', 'errors/', 'version.ts'] },
  { layer: 'connections', places: ['redis/'] },
  { layer: 'stores and the delivery engine', places: ['sessions/', 'webhooks/'] },
  { layer: 'HTTP', places: ['http/', 'auth/', 'docs/', 'sandbox/', 'metrics/', 'app.ts'] },
  { layer: 'start-up wiring', places: ['start-up/', 'config.ts', 'start-up-summary.ts', 'dev-key-banner.ts'] },
  { layer: 'entry points', places: ['cli/', 'bin/', 'main.ts', 'index.ts'] },
];

/** Index in SERVER_LAYERS of a repo-relative server/ file, or -1 when no layer names it. */
function layerOf(file: string): number {
  const inServer = file.slice('server/'.length);
  return SERVER_LAYERS.findIndex(({ places }) => places.some((p) => (p.endsWith('/') ? inServer.startsWith(p) : inServer === p)));
}

/** Imports in server/ from a lower layer to a higher one, as "file (layer) → specifier (layer)". */
function upwardImports(files: readonly string[]): string[] {
  return files.flatMap((file) =>
    specifiers(file)
      .filter((s) => s.startsWith('.') && target(file, s).startsWith('server/'))
      .filter((s) => layerOf(target(file, s)) > layerOf(file))
      .map((s) => `${file} (${SERVER_LAYERS[layerOf(file)]?.layer}) → ${s} (${SERVER_LAYERS[layerOf(target(file, s))]?.layer})`),
  );
}

describe('server/ in layers that only point down', () => {
  const files = sources('server');

  it('places every server/ source in exactly one layer', () => {
    const unplaced = files.filter((f) => layerOf(f) < 0);
    expect(unplaced).toEqual([]);
    const placesTwice = SERVER_LAYERS.flatMap((l) => l.places).filter((p, i, all) => all.indexOf(p) !== i);
    expect(placesTwice).toEqual([]);
  });

  it('no import runs back up a layer', () => {
    expect(upwardImports(files)).toEqual([]);
  });

  it('docs/architecture.md names the same layers, in the same order', () => {
    const page = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
    const rows = page.split('\n').filter((line) => /^\| \d+\. /.test(line));
    const documented = rows.map((row) => [...(row.split('|')[2] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]).sort());
    expect(documented).toEqual(SERVER_LAYERS.map((l) => [...l.places].sort()));
  });

  it('the check sees an upward import', () => {
    expect(layerOf('server/core/webhook-message.ts')).toBeLessThan(layerOf('server/sessions/session-store.ts'));
    expect(layerOf('server/main.ts')).toBe(SERVER_LAYERS.length - 1);
    expect(layerOf('server/elsewhere/new-file.ts')).toBe(-1);
  });
});

/** The published packages' names, by folder. */
const PACKAGE_NAMES = { client: 'session-resume-api', server: 'session-resume-api-server', cli: 'session-resume-api-cli' } as const;

/**
 * What each folder never imports: a folder by relative path (`relative`), a package by its name
 * (`named`). The library never imports the tools; the tools reach the library only by its
 * package name and never reach the server.
 */
const NEVER_IMPORTS: readonly { from: string; relative: readonly string[]; named: readonly string[] }[] = [
  { from: 'client', relative: ['server', 'cli'], named: [PACKAGE_NAMES.server, PACKAGE_NAMES.cli] },
  { from: 'server', relative: ['client', 'cli'], named: [PACKAGE_NAMES.client, PACKAGE_NAMES.cli] },
  { from: 'cli', relative: ['client', 'server'], named: [PACKAGE_NAMES.server] },
  { from: 'runtime', relative: ['client', 'server', 'cli'], named: Object.values(PACKAGE_NAMES) },
];

/** Whether a bare specifier names the package `name` or one of its subpaths. */
const namesPackage = (s: string, name: string) => s === name || s.startsWith(`${name}/`);

/** Specifiers of `from` that name one of the packages `named`. */
const namedImports = (from: string, named: readonly string[]) =>
  sources(from).flatMap((file) =>
    specifiers(file)
      .filter((s) => named.some((name) => namesPackage(s, name)))
      .map((s) => `${file} → ${s}`),
  );

const libraryExports = JSON.parse(readFileSync(join(root, 'client/package.json'), 'utf8')).exports as Record<string, unknown>;

describe('the library (client/) and the tools (cli/)', () => {
  it.each(NEVER_IMPORTS.map((line) => [`${line.from}/ never imports ${[...line.relative.map((f) => `${f}/`), ...line.named].join(', ')}`, line] as const))(
    '%s',
    (_title, { from, relative: folders, named }) => {
      expect(sources(from).length).toBeGreaterThan(0);
      expect([...crossings(from, [...folders]), ...namedImports(from, named)]).toEqual([]);
    },
  );

  it('the tools import the library through its public entries (client/package.json exports) only', () => {
    const imported = sources('cli').flatMap((file) => specifiers(file).filter((s) => namesPackage(s, PACKAGE_NAMES.client)));
    expect(imported).toEqual(expect.arrayContaining(['session-resume-api/client', 'session-resume-api/sandbox']));
    const unknown = ['cli', 'test', 'bench', 'examples', 'tools'].flatMap((dir) =>
      sources(dir).flatMap((file) =>
        specifiers(file)
          .filter((s) => namesPackage(s, PACKAGE_NAMES.client) && !(`.${s.slice(PACKAGE_NAMES.client.length)}` in libraryExports))
          .map((s) => `${file} → ${s}`),
      ),
    );
    expect(unknown).toEqual([]);
  });

  it('the checks see a crossing and a name', () => {
    expect(target('cli/resume-command.ts', '../client/sessions-client.js')).toBe('client/sessions-client.ts');
    expect(target('client/index.ts', '../cli/program.js')).toBe('cli/program.ts');
    expect(namesPackage('session-resume-api-server', PACKAGE_NAMES.server) && namesPackage('session-resume-api/client', PACKAGE_NAMES.client)).toBe(true);
    expect(namesPackage('session-resume-api-server', PACKAGE_NAMES.client)).toBe(false);
  });
});

describe('boundaries between runtime/, server/ and client/', () => {
  it('finds the sources of all four', () => {
    expect(sources('cli')).toContain('cli/main.ts');
    expect(sources('client')).toContain('client/sessions-client.ts');
    expect(sources('server')).toContain('server/app.ts');
    expect(sources('runtime')).toContain('runtime/contract.ts');
  });

  it('server/ never imports client/', () => {
    expect(crossings('server', ['client'])).toEqual([]);
  });

  it('client/ never imports server/', () => {
    expect(crossings('client', ['server'])).toEqual([]);
  });

  it('runtime/ imports neither server/ nor client/', () => {
    expect(crossings('runtime', ['server', 'client'])).toEqual([]);
  });

  it('the shared runtime is reached by its name, never by a relative climb', () => {
    expect(climbsIntoRuntime(['client', 'cli', 'server', 'tools', 'test', 'bench', 'examples'])).toEqual([]);
  });

  it('every runtime name imported resolves through runtime/package.json exports', () => {
    const dirs = ['client', 'cli', 'server', 'tools', 'test', 'bench', 'examples', 'runtime'];
    const unknown = dirs.flatMap((dir) =>
      sources(dir).flatMap((file) =>
        specifiers(file)
          .filter((s) => s.startsWith(RUNTIME) && !(runtimeTarget(s) && existsSync(join(root, runtimeTarget(s) as string))))
          .map((s) => `${file} → ${s}`),
      ),
    );
    expect(unknown).toEqual([]);
  });

  it('the crossing check sees a crossing', () => {
    expect(target('server/app.ts', '../client/index.js')).toBe('client/index.ts');
    expect(target('server/webhooks/x.ts', '../../runtime/backoff.js').startsWith('runtime/')).toBe(true);
    expect(runtimeTarget(`${RUNTIME}/delivery/deliver-event`)).toBe('runtime/delivery/deliver-event.ts');
  });

  it('nothing reachable from client/index.ts imports a Node built-in or a server dependency', () => {
    const files = [...reachable('client/index.ts')];
    expect(files).toEqual(expect.arrayContaining(['client/sessions-client.ts', 'runtime/resume-path.ts']));
    const offenders = files.flatMap((file) =>
      specifiers(file)
        .filter((s) => !s.startsWith('.') && (isBuiltin(s) || SERVER_ONLY.includes(s.split('/')[0] ?? s)))
        .map((s) => `${file} → ${s}`),
    );
    expect(offenders).toEqual([]);
    expect(isBuiltin('node:fs') && isBuiltin('crypto') && !isBuiltin('openapi-fetch')).toBe(true);
  });

  it('shows users no message that cites a document they do not have (source spec sections, issue numbers)', () => {
    const cites = /source spec|§(?!\d+(\.\d+)*\)?\s*(of RFC|RFC))|\bissue #?\d+/i;
    const offenders = [...sources('client'), ...sources('cli'), ...sources('server'), ...sources('runtime')].flatMap((f) => {
      // String literals only: comments may cite spec/openapi.yaml, x-decisions ids and RFCs.
      const code = readFileSync(join(root, f), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      const literals = code.match(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g) ?? [];
      return literals.filter((l) => cites.test(l) && !/RFC \d+/.test(l)).map((l) => `${f}: ${l.slice(0, 80)}`);
    });
    expect(offenders).toEqual([]);
  });

  it('reads process.env only in entry points', () => {
    const entryPoints = ['cli/config.ts', 'server/main.ts', 'server/config.ts'];
    const readers = [...sources('client'), ...sources('cli'), ...sources('server'), ...sources('runtime')].filter((f) =>
      /process\.env/.test(readFileSync(join(root, f), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')),
    );
    expect(readers.filter((f) => !entryPoints.includes(f))).toEqual([]);
  });
});

/** Every `description`/`summary` of a YAML document, and each decision's texts but its `source`, with its path. */
function userTexts(node: unknown, path: string): [string, string][] {
  if (Array.isArray(node)) return node.flatMap((item, i) => userTexts(item, `${path}[${i}]`));
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]): [string, string][] => {
    const at = `${path}.${key}`;
    if (typeof value === 'string') {
      const decisionText = path.includes('x-decisions[') && key !== 'source' && key !== 'id';
      return ['description', 'summary'].includes(key) || decisionText ? [[at, value]] : [];
    }
    return userTexts(value, at);
  });
}

describe('texts users read state the rule itself', () => {
  it('the check finds a section citation, an issue number and machine talk, and lets RFC sections pass', () => {
    expect(authorsMachineOrSourceCitation('answered 404 (source spec §4 rule 2)')).toBe(true);
    expect(authorsMachineOrSourceCitation('see §6 rule 3')).toBe(true);
    expect(authorsMachineOrSourceCitation('start-up (issue #14)')).toBe(true);
    expect(authorsMachineOrSourceCitation('on this 2-core VM')).toBe(true);
    expect(authorsMachineOrSourceCitation('the challenge (RFC 6750 §3, §3.1) and RFC 9110 §10.2.3')).toBe(false);
  });

  it('spec descriptions, summaries and decision texts cite no source section (the source field keeps the mapping)', () => {
    const offenders = ['spec/openapi.yaml', 'spec/sandbox.yaml'].flatMap((file) =>
      userTexts(parse(readFileSync(join(root, file), 'utf8')), file)
        .filter(([, text]) => authorsMachineOrSourceCitation(text))
        .map(([at, text]) => `${at}: ${text.slice(0, 100)}`),
    );
    expect(offenders).toEqual([]);
  });

  it('TSDoc comments of client/, cli/, server/ and runtime/ cite no source section or issue and speak of no machine', () => {
    const offenders = [...sources('client'), ...sources('cli'), ...sources('server'), ...sources('runtime')].flatMap((f) => {
      const text = readFileSync(join(root, f), 'utf8');
      return [...text.matchAll(/\/\*\*[\s\S]*?\*\//g)]
        .filter((m) => authorsMachineOrSourceCitation(m[0]))
        .map((m) => `${f}:${text.slice(0, m.index).split('\n').length}`);
    });
    expect(offenders).toEqual([]);
  });
});
