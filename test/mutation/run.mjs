// `npm run test:mutation [-- stryker options]`: runs StrykerJS (stryker.config.mjs), then
// report-scores.mjs over the modules the run mutated (all rule modules, or those --mutate names).
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const stryker = spawnSync(process.execPath, ['node_modules/@stryker-mutator/core/bin/stryker.js', 'run', ...args], { stdio: 'inherit' });
if (stryker.status !== 0) process.exit(stryker.status ?? 1);

// --mutate a.ts,b.ts (or -m): Stryker's file list, each possibly with a :line range.
const at = args.findIndex((arg) => arg === '--mutate' || arg === '-m');
const mutated = at >= 0 ? (args[at + 1] ?? '').split(',').map((file) => file.replace(/:\d.*$/, '')) : [];
const report = spawnSync(process.execPath, ['test/mutation/report-scores.mjs', ...mutated], { stdio: 'inherit' });
process.exit(report.status ?? 1);
