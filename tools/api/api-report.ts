/**
 * The committed API report of each package entry (api/<entry>.api.md), by api-extractor from the
 * built declarations: an export's change shows in review as a diff, as `spec:diff` shows the wire's.
 * Usage: tsx tools/api/api-report.ts [--accept]  (compare, exit 1 naming what differs; or rewrite)
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel, type IConfigFile } from '@microsoft/api-extractor';

const root = fileURLToPath(new URL('../..', import.meta.url));
const accept = process.argv.includes('--accept');

type Exports = Record<string, string | { types?: string }>;
const exportsOf = (pkg: string) => (JSON.parse(readFileSync(join(root, pkg, 'package.json'), 'utf8')) as { exports: Exports }).exports;

/**
 * Report name → package and `exports` subpath, every export with `types` (`./webhooks/redis` →
 * `webhooks-redis`). types/ (session-resume-api-types) holds the wire types: its report is the
 * only one that lists them; the others import them from that package by name, as any package.
 */
const ENTRIES = Object.fromEntries(
  ['types', 'client', 'server'].flatMap((pkg) =>
    Object.entries(exportsOf(pkg))
      .filter(([, target]) => typeof target === 'object' && target.types !== undefined)
      .map(([subpath]) => [subpath === '.' ? pkg : subpath.slice(2).replaceAll('/', '-'), { pkg, subpath }] as const),
  ),
);

function typesOf(pkg: string, subpath: string): string {
  return join(root, pkg, (exportsOf(pkg)[subpath] as { types: string }).types);
}

function configOf(name: string, pkg: string, subpath: string): ExtractorConfig {
  const configObject: IConfigFile = {
    projectFolder: root,
    mainEntryPointFilePath: typesOf(pkg, subpath),
    compiler: {
      overrideTsconfig: {
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          types: ['node'],
          skipLibCheck: true,
          strict: true,
        },
        files: [typesOf(pkg, subpath)],
      },
    },
    apiReport: { enabled: true, reportFileName: name, reportFolder: join(root, 'api'), reportTempFolder: join(root, '.tmp/api') },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
      extractorMessageReporting: {
        default: { logLevel: ExtractorLogLevel.Warning },
        // A type users meet but cannot import by name: listed in the report, where review sees it
        // and test/unit/api-reports.test.ts refuses it, rather than printed on every run.
        'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
        // Release tags (@public, @beta) are not used: every export is public.
        'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
        // TSDoc coverage is review's (no lint rule checks it); the report pins names and types.
        'ae-undocumented': { logLevel: ExtractorLogLevel.None },
        // `@defaultValue {@link DEFAULT_X} (literal)` may name a constant the entry does not
        // export: the literal is what a reader gets, and test/unit/default-values.test.ts checks it.
        'ae-unresolved-link': { logLevel: ExtractorLogLevel.None },
      },
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
    },
  };
  return ExtractorConfig.prepare({ configObject, configObjectFullPath: undefined, packageJsonFullPath: join(root, pkg, 'package.json') });
}

function main(): number {
  const typescriptCompilerFolder = dirname(fileURLToPath(import.meta.resolve('typescript/package.json')));
  const changed: string[] = [];
  let state: CompilerState | undefined;
  for (const [name, { pkg, subpath }] of Object.entries(ENTRIES)) {
    const config = configOf(name, pkg, subpath);
    // One program for every entry: the declarations are parsed once.
    state ??= CompilerState.create(config, { additionalEntryPoints: Object.values(ENTRIES).map((e) => typesOf(e.pkg, e.subpath)) });
    const result = Extractor.invoke(config, { localBuild: accept, compilerState: state, typescriptCompilerFolder, messageCallback: quietInfo });
    if (result.apiReportChanged) changed.push(name);
    if (!result.succeeded && !result.apiReportChanged) {
      console.error(`api-extractor failed on ${name}: ${result.errorCount} errors, ${result.warningCount} warnings`);
      return 1;
    }
  }
  if (changed.length === 0) return 0;
  if (accept) {
    console.log(`api/: rewrote ${changed.map((n) => `${n}.api.md`).join(', ')}; commit them with the change.`);
    return 0;
  }
  console.error(
    `The public API changed: ${changed.map((n) => `api/${n}.api.md`).join(', ')} differ from the build (new text in .tmp/api/). ` +
      'If the change is meant, run `npm run api:report` and commit the reports (docs/contributing.md#the-api-reports).',
  );
  return 1;
}

/** api-extractor's progress lines ("Analysis will use…") say nothing a run needs. */
function quietInfo(message: { logLevel: ExtractorLogLevel; handled: boolean }): void {
  if (message.logLevel === ExtractorLogLevel.Info || message.logLevel === ExtractorLogLevel.Verbose) message.handled = true;
}

process.exitCode = main();
