/** Entry point of `npm run conformance`: parses argv, runs the checks, prints the table; exit 0/1/2. */
import { CONFORMANCE_HELP, parseConformanceArgs } from './conformance-options.js';
import { renderReportTable } from './report-table.js';
import { runConformance } from './run-conformance.js';

const parsed = parseConformanceArgs(process.argv.slice(2));
if (parsed.kind === 'help') {
  console.log(CONFORMANCE_HELP);
} else if (parsed.kind === 'usage-error') {
  console.error(`${parsed.message}\n\n${CONFORMANCE_HELP}`);
  process.exitCode = 2;
} else {
  const report = await runConformance(parsed.options);
  process.stdout.write(renderReportTable(report));
  process.exitCode = report.ok ? 0 : 1;
}
