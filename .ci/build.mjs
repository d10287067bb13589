// Builds the package: tsc (tsconfig.build.json) to dist/ as ESM with .d.ts, then copies what
// tsc does not emit: the spec YAML next to dist/spec/contract.js (which reads ./openapi.yaml)
// and the generated .d.ts that dist/spec/types.d.ts refers to.
// Usage: node .ci/build.mjs [outDir]   (default dist; tests build into a temp dir)
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = resolve(root, process.argv[2] ?? 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(outDir, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir], { stdio: 'inherit' });
for (const file of ['spec/openapi.yaml', 'generated/api.d.ts']) {
  mkdirSync(dirname(join(outDir, file)), { recursive: true });
  copyFileSync(join(root, file), join(outDir, file));
}
console.log(`built ${outDir}`);
