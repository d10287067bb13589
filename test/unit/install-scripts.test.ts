/**
 * `npm ci` is quiet about install scripts: every package of the lockfile that has one is named
 * in package.json's `allowScripts` (as `npm install-scripts approve` writes it), allowed
 * (esbuild's binary check, msgpackr-extract's prebuilt addon, msw's worker copy) or refused
 * (@scarf/scarf's telemetry).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const json = (file: string) => JSON.parse(readFileSync(`${root}${file}`, 'utf8')) as Record<string, unknown>;

it("every locked package with an install script is decided in package.json's allowScripts, and only those", () => {
  const { packages } = json('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
  const withScripts = Object.entries(packages)
    .filter(([path, p]) => p.hasInstallScript && path.includes('node_modules/'))
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  expect(withScripts.length).toBeGreaterThan(0);
  const decided = Object.keys((json('package.json').allowScripts ?? {}) as Record<string, boolean>);
  expect(withScripts.filter((spec) => !decided.includes(spec))).toEqual([]);
  expect(decided.filter((spec) => !withScripts.includes(spec))).toEqual([]);
});
