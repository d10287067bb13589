// Re-adds lockfile entries for platform-specific optional packages that this machine's npm
// registry does not serve (e.g. @msgpackr-extract/msgpackr-extract-darwin-arm64, reached
// through bullmq → msgpackr). npm 11 leaves them out of package-lock.json and `npm ci` then
// refuses the lock ("Missing: ... from lock file", npm/cli#4828, #9342). The entries carry
// os/cpu, so npm skips them on other platforms and never fetches them.
// Run after any `npm install`: node .ci/fix-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openbsd', 'sunos', 'aix'];
const CPU = ['arm64', 'x64', 'arm', 'ia32', 'ppc64', 's390x', 'riscv64', 'loong64'];
let added = 0;
for (const [path, meta] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(meta.optionalDependencies ?? {})) {
    const parent = path.slice(0, path.lastIndexOf('node_modules/'));
    const candidates = [`${path}/node_modules/${name}`, `${parent}node_modules/${name}`, `node_modules/${name}`];
    if (candidates.some((c) => packages[c])) continue;
    const parts = name.split(/[-/]/);
    const os = parts.find((p) => OS.includes(p));
    const cpu = parts.find((p) => CPU.includes(p));
    if (!os || !cpu) {
      console.error(`fix-lockfile: ${name} (optional dep of ${path}) is missing and names no platform; not touched`);
      continue;
    }
    packages[`node_modules/${name}`] = { version: range.replace(/^[\^~]/, ''), cpu: [cpu], license: meta.license, optional: true, os: [os] };
    if (meta.dev) packages[`node_modules/${name}`].dev = true;
    added++;
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
lock.packages = sorted;
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`fix-lockfile: added ${added} platform entr${added === 1 ? 'y' : 'ies'}`);
