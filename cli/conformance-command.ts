/**
 * `session-resume-api conformance`: the contract checks of spec/openapi.yaml against a target,
 * printed as a pass/fail table. Exit 0 all passed (skipped ones included), 1 a check failed,
 * 2 usage error.
 */
import { Command } from 'commander';
import { checkConformanceOptions, type ConformanceMode } from './conformance/conformance-options.js';
import { renderReportTable } from './conformance/report-table.js';
import { runConformance } from './conformance/run-conformance.js';
import { EXIT, UsageError } from './program.js';
import { readCliEnv, type CliEnv } from './config.js';

interface ConformanceCliOptions {
  baseUrl?: string;
  apiKey?: string;
  mode: string;
  pausedSession?: string;
  notPausedSession?: string;
  reset?: boolean;
  webhookUrl?: string;
  timeoutMs?: string;
}

const SAFETY = `
Safe against a live service: the only session it resumes is the one given with
--paused-session (resumed exactly once). Every other request goes to a random unknown
id, carries no or a wrong token, or targets --not-paused-session, which cannot resume.

Running it again: the first run resumed --paused-session. Against the sandbox
(npm run sandbox, a sandbox_ key) pass --reset; against npm start restart the server or
give another paused session.

Exit status: 0 all checks passed (skipped ones included), 1 a check failed, 2 usage error.`;

/**
 * Creates the `conformance` command; `env` defaults to the process environment (SESSION_RESUME_*).
 * @example session-resume-api conformance --base-url http://127.0.0.1:4010 --api-key k --mode mock
 */
export function createConformanceCommand(env: CliEnv = readCliEnv()): Command {
  return new Command('conformance')
    .description("Check a target against the spec: every answer's status, headers and body are validated.")
    .option('--base-url <url>', 'target base URL, without /v1 (env: SESSION_RESUME_BASE_URL)')
    .option('--api-key <key>', 'a valid API key of the target (env: SESSION_RESUME_API_KEY)')
    .option('--mode <live|mock>', 'live: a stateful service; mock: a Prism mock driven by Prefer headers', 'live')
    .option('--paused-session <id>', 'a paused session the suite may resume (live mode)')
    .option('--not-paused-session <id>', 'an existing session that is not paused (live mode)')
    .option('--reset', "first put the key's sandbox world back to its seed set (a sandbox target)")
    .option('--webhook-url <url>', 'a webhook URL to check against the URL policy')
    .option('--timeout-ms <ms>', 'per-request timeout in ms (default 10000)')
    .addHelpText('after', SAFETY)
    .action(async (options: ConformanceCliOptions) => {
      const checked = checkConformanceOptions({
        baseUrl: options.baseUrl ?? env.baseUrl ?? '',
        apiKey: options.apiKey ?? env.apiKey ?? '',
        mode: options.mode as ConformanceMode,
        pausedSession: options.pausedSession,
        notPausedSession: options.notPausedSession,
        reset: options.reset,
        webhookUrl: options.webhookUrl,
        timeoutMs: options.timeoutMs === undefined ? undefined : Number(options.timeoutMs),
      });
      if (typeof checked === 'string') throw new UsageError(checked);
      const report = await runConformance(checked);
      process.stdout.write(renderReportTable(report));
      process.exitCode = report.ok ? EXIT.resumed : EXIT.failed;
    });
}
