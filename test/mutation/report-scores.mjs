// Reads StrykerJS's JSON report (reports/mutation/mutation.json) after `npm run test:mutation`:
// prints each rule module's score and its surviving and unreached mutants (file:line:column,
// mutator, replacement), and fails when a module is under 90 % or all of them together under
// 95 %. Mutants marked equivalent (`// Stryker disable next-line <mutator>: <reason>`) count in
// neither direction. `node test/mutation/report-scores.mjs [module ...]`: the named modules
// only (a run narrowed by --mutate also reports earlier results of other modules, kept by the
// incremental mode).
import { readFileSync } from 'node:fs';
import { ruleModules } from '../../stryker.config.mjs';

const MODULE_MIN = 90;
const OVERALL_MIN = 95;
const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

const only = process.argv.slice(2);
const report = JSON.parse(readFileSync(process.env.MUTATION_REPORT ?? 'reports/mutation/mutation.json', 'utf8'));
const files = Object.entries(report.files).filter(([path]) => only.length === 0 || only.includes(path));

const percent = (detected, valid) => (valid === 0 ? 100 : (100 * detected) / valid);
let detectedAll = 0;
let validAll = 0;
const failures = [];
for (const [path, file] of files.sort(([a], [b]) => a.localeCompare(b))) {
  const detected = file.mutants.filter((m) => DETECTED.has(m.status)).length;
  const left = file.mutants.filter((m) => UNDETECTED.has(m.status));
  const ignored = file.mutants.filter((m) => m.status === 'Ignored').length;
  const valid = detected + left.length;
  detectedAll += detected;
  validAll += valid;
  const score = percent(detected, valid);
  if (score < MODULE_MIN) failures.push(`${path} at ${score.toFixed(2)} % (at least ${MODULE_MIN} %)`);
  console.log(`\n${path}: ${score.toFixed(2)} % (${detected} of ${valid} detected, ${ignored} marked equivalent)`);
  for (const m of left.sort((a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column)) {
    const where = `${path}:${m.location.start.line}:${m.location.start.column}`;
    const replacement = (m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 100);
    console.log(`  ${m.status === 'NoCoverage' ? 'no test reaches' : 'survived'}  ${where}  ${m.mutatorName}  ${replacement}`);
  }
}

const overall = percent(detectedAll, validAll);
const whole = ruleModules.every((path) => files.some(([name]) => name === path.replace(/:\d.*$/, '')));
console.log(`\n${files.length} module(s) together: ${overall.toFixed(2)} % (${detectedAll} of ${validAll} detected)`);
if (whole && overall < OVERALL_MIN) failures.push(`all rule modules at ${overall.toFixed(2)} % (at least ${OVERALL_MIN} %)`);
if (!whole) console.log(`(a partial run: the ${OVERALL_MIN} % bar applies to a run over every rule module)`);
if (failures.length > 0) {
  console.error(`\nUnder the bar:\n  ${failures.join('\n  ')}`);
  process.exitCode = 1;
}
