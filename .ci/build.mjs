// Builds the three published packages of this repo (npm workspaces):
// - client/ → session-resume-api, the library: esbuild bundles per export (browser-safe
//   ./client, ./webhooks, ./webhooks/redis, ./msw, ./sandbox), dependencies left external; Ajv
//   and yaml are bundled into the Node entries that need them, so a consumer installs neither.
// - server/ → session-resume-api-server: esbuild bundles of the library and the bin, so starting
//   the server needs no TypeScript transpiler; the HTML reference built into dist/docs/.
// - cli/ → session-resume-api-cli, the `session-resume-api` command: one bundle of the tools
//   with the library's code they import (a devDependency: the command runs the library it was
//   built and tested with, and installing it needs no other tarball); its own dependencies external.
// client/ and server/ get .d.ts from tsc (dist/types/, the repo's folder structure kept); the
// command ships none (nothing imports it). All three get spec/openapi.yaml.
// The shared runtime (runtime/, the private workspace package @session-resume-api/runtime) is
// bundled into each: it is never a dependency of a published package, and the declarations the
// packages ship point at its declarations copied beside theirs (relinkRuntime).
// Entries come from each package.json's exports ("source" → "default") and bin.
// The wire types (generated from the specs) are a third, types-only package, session-resume-api-types
// (types/): both packages' declarations import it, and each bundles it (bundleDependencies), so a
// consumer installs one tarball and its API reports name the wire types instead of listing them.
//
// Usage: node .ci/build.mjs [--out DIR] [--if-stale] [--quiet]
//   --out DIR    write DIR/client, DIR/server and DIR/cli (package.json, README.md, bin/, dist/) instead of in place
//   --if-stale   do nothing when every dist is newer than every source file (npm start uses it);
//                else say on stderr, even with --quiet, that it rebuilds
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const outRoot = args.includes('--out') ? resolve(args[args.indexOf('--out') + 1]) : undefined;
const quiet = args.includes('--quiet');
const log = (line) => quiet || console.log(line);
const PACKAGES = ['client', 'server', 'cli'];
// The packages that ship declarations (tsconfig.build.json includes their folders).
const TYPED = ['client', 'server'];
const SOURCE_DIRS = ['client', 'server', 'cli', 'runtime', 'spec', 'generated', 'types'];
// Entries beside the exports: the commands (bin/*.js launchers import them), and the webhook URL
// rules in a file of their own, so that a bundler drops it (and ipaddr.js) from an app that
// imports only createSessionsClient (client/package.json has "sideEffects": false).
const EXTRA_ENTRIES = { client: { 'webhook-url': '../runtime/webhook-url.ts' }, server: { main: 'main.ts' }, cli: { main: 'main.ts' } };

/** Newest modification time (ms) under `dir`, skipping dist and node_modules. */
function newest(dir) {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return max;
}

function isStale() {
  const sources = Math.max(...SOURCE_DIRS.map((d) => newest(join(root, d))), statSync(join(root, '.ci/build.mjs')).mtimeMs);
  return PACKAGES.some((p) => {
    const stamp = join(outRoot ?? root, p, 'dist/.built');
    return !existsSync(stamp) || statSync(stamp).mtimeMs < sources;
  });
}

/** esbuild entry points of one package: export "source" → "default", and the extra entries. */
function entries(pkgDir, pkg) {
  const map = {};
  for (const target of Object.values(pkg.exports)) {
    if (typeof target !== 'object' || !target.source || !existsSync(join(pkgDir, target.source))) continue;
    map[target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '')] = join(pkgDir, target.source);
  }
  for (const [out, source] of Object.entries(EXTRA_ENTRIES[relative(root, pkgDir)])) map[out] = join(pkgDir, source);
  return map;
}

// Dependencies the server's bin still imports from node_modules (the rest is bundled into it).
const BIN_EXTERNAL = ['ioredis', 'bullmq', '@opentelemetry/api'];
// Bundled JSON (mime-db, iconv-lite's code pages, the OpenAPI meta-schemas: about 1.5 MB) as
// JSON.parse of a string: V8 scans a string literal far faster than it parses an object literal.
const jsonAsString = {
  name: 'json-as-string',
  setup(b) {
    b.onLoad({ filter: /\.json$/ }, (args) => ({
      contents: `module.exports = JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(readFileSync(args.path, 'utf8'))))});`,
      loader: 'js',
    }));
  },
};
// CommonJS dependencies bundled into ESM (Ajv, yaml) call require() through esbuild's __require
// helper, which uses a `require` in scope when there is one: the output file that defines the
// helper gets one. esbuild puts its helpers in one chunk that browser entries import too, so the
// require is taken from Node's process.getBuiltinModule (Node 20.16 and later) instead of an
// import of node:module: a browser has no process, gets no require and never calls it (only code
// Node entries reach does), and its bundler meets no Node built-in.
const NODE_REQUIRE = "const require = globalThis.process?.getBuiltinModule?.('node:module')?.createRequire(import.meta.url);\n";

/** Writes esbuild's output files, giving the one that defines `__require` a require of its own. */
function writeOutputs(outputFiles) {
  for (const file of outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    const needsRequire = file.path.endsWith('.js') && /\bvar __require\b/.test(file.text);
    // After a leading #! line, which must stay the file's first.
    const shebang = /^#!.*\n/.exec(file.text)?.[0] ?? '';
    writeFileSync(file.path, needsRequire ? shebang + NODE_REQUIRE + file.text.slice(shebang.length) : file.contents);
  }
}

async function bundle(name, pkgDir, distDir) {
  // Imported here, not at the top: `npm start` runs this script with --if-stale first, and when
  // nothing is stale loading esbuild and yaml was most of its 0.2 s.
  const [{ build }, { parse }] = await Promise.all([import('esbuild'), import('yaml')]);
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
  const all = entries(pkgDir, pkg);
  const common = {
    outdir: distDir,
    // Flat output: runtime/contract.ts finds openapi.yaml beside whichever file holds it.
    chunkNames: 'chunk-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    target: 'node20',
    external,
    // Only the "source" condition is ours; esbuild then follows each dependency's "import".
    conditions: ['source'],
    minifySyntax: true,
    legalComments: 'linked',
    logLevel: 'warning',
  };
  // One run for every entry, browser and Node alike, so code they share is one chunk: one
  // OptionsError class whichever subpath it is imported from (instanceof holds across them).
  const library = Object.fromEntries(Object.entries(all).filter(([out]) => !(name === 'server' && out === 'main')));
  const { outputFiles } = await build({ ...common, entryPoints: library, platform: 'node', write: false });
  writeOutputs(outputFiles);
  // The server's bin carries its dependencies in its own chunks: loading one file instead of
  // ~450 modules (resolution, stat, package.json reads, CJS parsing): about a quarter of its start-up CPU.
  // ioredis and BullMQ stay external: loaded only with Redis (server/start-up/redis-runtime.ts),
  // and BullMQ reads its Lua scripts and msgpackr's optional native part from disk.
  if (all.main && name === 'server') {
    const bin = await build({
      ...common,
      entryPoints: { main: all.main },
      chunkNames: 'main-[hash]',
      external: BIN_EXTERNAL,
      platform: 'node',
      plugins: [jsonAsString],
      write: false,
    });
    writeOutputs(bin.outputFiles);
  }
  // The YAML for readers, and a JSON twin that runtime/contract.ts loads instead (no YAML parse at start).
  for (const doc of ['openapi', 'sandbox']) {
    cpSync(join(root, 'spec', `${doc}.yaml`), join(distDir, `${doc}.yaml`));
    writeFileSync(join(distDir, `${doc}.json`), JSON.stringify(parse(readFileSync(join(root, 'spec', `${doc}.yaml`), 'utf8'))));
  }
  log(`bundled ${name}: ${Object.keys(all).join(', ')}`);
}

/** .d.ts of client/, server/ and the shared runtime into <dist>/types of the typed packages, plus generated/*.d.ts. */
function declarations(distDirs) {
  // A folder of this build's own: two builds at once (a test's, npm start's) never share one.
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const tmp = mkdtempSync(join(root, '.tmp/types-'));
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', tmp], { stdio: 'inherit' });
  for (const file of readdirSync(join(root, 'generated')).filter((f) => f.endsWith('.d.ts'))) {
    mkdirSync(join(tmp, 'generated'), { recursive: true });
    cpSync(join(root, 'generated', file), join(tmp, 'generated', file));
  }
  relinkRuntime(tmp);
  // Each package ships the declarations of its own folder and of the layers under it.
  for (const [name, dist] of Object.entries(distDirs).filter(([name]) => TYPED.includes(name))) {
    for (const dir of [name, 'runtime', 'generated']) cpSync(join(tmp, dir), join(dist, 'types', dir), { recursive: true });
  }
  rmSync(tmp, { recursive: true, force: true });
}

const RUNTIME_NAME = '@session-resume-api/runtime';

/**
 * Rewrites the shared runtime's package name in emitted declarations (`from '…'`, `import('…')`)
 * into a relative path to its own declarations under the same types folder: a consumer installs
 * only the published package, which has no such dependency. Each subpath goes through the
 * runtime's `exports`, so a name tsc could not have resolved fails the build here.
 */
function relinkRuntime(typesDir) {
  const { exports } = JSON.parse(readFileSync(join(root, 'runtime/package.json'), 'utf8'));
  const pattern = new RegExp(`(['"])${RUNTIME_NAME}/([^'"]+)\\1`, 'g');
  for (const file of readdirSync(typesDir, { recursive: true }).filter((f) => f.endsWith('.d.ts'))) {
    const path = join(typesDir, file);
    const text = readFileSync(path, 'utf8');
    const relinked = text.replace(pattern, (_, quote, subpath) => {
      const source = exports[`./${subpath}`];
      if (typeof source !== 'string') throw new Error(`${file}: ${RUNTIME_NAME}/${subpath} is not an export of runtime/package.json`);
      const to = relative(dirname(path), join(typesDir, 'runtime', source.replace(/\.ts$/, '.js')))
        .split('\\')
        .join('/');
      return `${quote}${to.startsWith('.') ? to : `./${to}`}${quote}`;
    });
    if (relinked !== text) writeFileSync(path, relinked);
  }
}

const TYPES_NAME = 'session-resume-api-types';

/**
 * session-resume-api-types as published, into `outDir`: package.json without the in-repo "source"
 * condition, and dist/ (its index.d.ts with the generated declarations beside it).
 */
function buildTypesPackage(outDir) {
  rmSync(outDir, { recursive: true, force: true });
  writeTypesDist(join(outDir, 'dist'));
  const pkg = JSON.parse(readFileSync(join(root, 'types/package.json'), 'utf8'));
  delete pkg.exports['.'].source;
  writeFileSync(join(outDir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
}

/** The types package's dist/: its index.d.ts with the generated declarations beside it. */
function writeTypesDist(dist) {
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  for (const file of ['api.d.ts', 'sandbox.d.ts']) cpSync(join(root, 'generated', file), join(dist, file));
  writeFileSync(join(dist, 'index.d.ts'), readFileSync(join(root, 'types/index.d.ts'), 'utf8').replaceAll("'../generated/", "'./"));
}

async function buildDocsInto(distDir) {
  const { buildDocs } = await import('tsx/esm/api').then(({ tsImport }) => tsImport('../tools/docs/build-docs.ts', import.meta.url));
  await buildDocs({ outputPath: join(distDir, 'docs/index.html') });
}

async function main() {
  if (args.includes('--if-stale')) {
    if (!isStale()) return;
    // Said even with --quiet: a rebuild takes about half a minute, and silence looks like a hang.
    console.error('The sources changed since the last build: rebuilding client/dist, server/dist and cli/dist first (about 30 s) …');
  }
  const started = Date.now();
  const targets = PACKAGES.map((name) => {
    const pkgDir = join(root, name);
    const outDir = outRoot ? join(outRoot, name) : pkgDir;
    if (outRoot) {
      mkdirSync(outDir, { recursive: true });
      for (const file of ['package.json', 'README.md', 'bin'].filter((f) => existsSync(join(pkgDir, f))))
        cpSync(join(pkgDir, file), join(outDir, file), { recursive: true });
    }
    return { name, pkgDir, distDir: join(outDir, 'dist') };
  });
  for (const { distDir } of targets) rmSync(distDir, { recursive: true, force: true });
  // The declarations of both packages import it: a copy in each package's own node_modules is
  // what `npm pack` bundles (bundleDependencies take no hoisted workspace link), in place and with
  // --out alike, and what API Extractor resolves from dist/types. In-repo TypeScript reads
  // types/index.d.ts itself (tsconfig.json `paths`), so a stale copy never hides a new wire type.
  for (const { name } of targets) buildTypesPackage(join(outRoot ?? root, name, 'node_modules', TYPES_NAME));
  // In place also types/dist: its own report (tools/api) and `npm pack -w types`.
  if (!outRoot) writeTypesDist(join(root, 'types/dist'));
  await Promise.all(targets.map(({ name, pkgDir, distDir }) => bundle(name, pkgDir, distDir)));
  declarations(Object.fromEntries(targets.map((t) => [t.name, t.distDir])));
  await buildDocsInto(targets.find((t) => t.name === 'server').distDir);
  for (const { distDir } of targets) writeFileSync(join(distDir, '.built'), `${new Date().toISOString()}\n`);
  log(`built ${targets.map((t) => relative(process.cwd(), dirname(t.distDir)) || '.').join(' and ')} in ${Date.now() - started} ms`);
}

await main();
