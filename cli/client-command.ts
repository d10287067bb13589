/**
 * `session-resume-api client grade`: grade a client of the Session Resume API, in any language,
 * against the resume retry rules. Exit codes: 0 every rule passed or was not observable, 1 a rule
 * failed, 2 usage (see program.ts).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { childEnv } from './config.js';
import { MIN_SPREAD_SAMPLES } from './client-grade/backoff-check.js';
import { CLIENT_RULES, type ClientRuleId } from './client-grade/client-rules.js';
import { FAULT_DEFAULTS, formatRunEnd, gradeObservations, isClientRuleId, observeClient } from './client-grade/run-client-grade.js';
import { createGradeLineFormatter, formatGradeSummary } from './grade-report.js';
import { EXIT } from './program.js';
import { wholeNumberArgument } from './whole-number-argument.js';

interface GradeFlags {
  run?: string;
  serve?: boolean;
  json?: boolean;
  port: number;
  timeLimitMs?: number;
  only?: ClientRuleId[];
  retryAfter503: number;
  retryAfter429: number;
  backoffCalls: number;
}

/** `--only request,retry-503`: rule ids of the list, checked. */
function ruleIds(value: string): ClientRuleId[] {
  const ids = value.split(',').map((id) => id.trim());
  const unknown = ids.filter((id) => !isClientRuleId(id));
  if (unknown.length > 0) throw new InvalidArgumentError(`no rule ${unknown.join(', ')}; the rules are ${CLIENT_RULES.map((r) => r.id).join(', ')}.`);
  return ids as ClientRuleId[];
}

const print = (line: string) => process.stdout.write(`${line}\n`);

/** The --serve banner: the variables to give the client, and how the wait ends. On stderr, so --json output stays JSON. */
function printServe(vars: Record<string, string>, timeLimitMs: number): void {
  const lines = Object.entries(vars).map(([name, value]) => `export ${name}="${value}"`);
  process.stderr.write(
    `Serving the resume operation with scripted faults. Give your client these variables and let it resume each id once, in order:\n${lines.join('\n')}\n` +
      `Then press Ctrl-C (or send SIGTERM) to grade what it did; the wait ends by itself after ${Math.round(timeLimitMs / 1000)} s.\n`,
  );
}

function createGradeCommand(): Command {
  return new Command('grade')
    .description(
      'Grade a client against the resume retry rules (docs/cli.md#client-grade): serves the resume operation on 127.0.0.1 with ' +
        'scripted faults per session id (503 and 429 with Retry-After, a lost connection, a 500, a lost answer, a hang, 400/401/404/422, ' +
        '409 not_paused), lets the client resume each id, and grades what reached the server. One line per rule: pass, FAIL ' +
        'or n/o (not observable) with the evidence. Exit 1 if any rule failed.',
    )
    .option(
      '--run <command>',
      'shell command of the client under test, run with SESSION_RESUME_BASE_URL, SESSION_RESUME_API_KEY and SESSION_RESUME_SESSION_IDS set',
    )
    .option('--serve', 'print those variables and wait while you drive the client by hand; Ctrl-C or SIGTERM grades')
    .option('--json', 'print one JSON object per rule: {"rule","title","grade","evidence"}, grade "pass", "fail" or "n/o"')
    .addOption(new Option('--only <rules>', 'grade only these rules, comma-separated').argParser(ruleIds))
    .addOption(
      new Option('--port <port>', 'port of the grader on 127.0.0.1 (0: a free one)').argParser(wholeNumberArgument({ min: 0, max: 65_535 })).default(0),
    )
    .addOption(
      new Option('--time-limit-ms <ms>', 'longest run (default 180000 with --run, 600000 with --serve)').argParser(
        wholeNumberArgument({ min: 1000, max: 3_600_000 }),
      ),
    )
    .addOption(
      new Option('--retry-after-503 <s>', 'Retry-After of the 503, in seconds')
        .argParser(wholeNumberArgument({ min: 0, max: 60 }))
        .default(FAULT_DEFAULTS.unavailableRetryAfterSeconds),
    )
    .addOption(
      new Option('--retry-after-429 <s>', 'Retry-After of the 429, in seconds')
        .argParser(wholeNumberArgument({ min: 0, max: 60 }))
        .default(FAULT_DEFAULTS.rateLimitedRetryAfterSeconds),
    )
    .addOption(
      new Option('--backoff-calls <n>', 'calls that meet a 503 on every attempt, to see the back-off')
        .argParser(wholeNumberArgument({ min: MIN_SPREAD_SAMPLES, max: 40 }))
        .default(FAULT_DEFAULTS.backoffCalls),
    )
    .action(async (flags: GradeFlags, command: Command) => {
      if ((flags.run === undefined) === (flags.serve === undefined))
        command.error('error: give one of --run "<command>" or --serve.', { exitCode: EXIT.usage });
      const obs = await observeClient(
        {
          ...(flags.run === undefined ? {} : { run: flags.run }),
          port: flags.port,
          ...(flags.timeLimitMs === undefined ? {} : { timeLimitMs: flags.timeLimitMs }),
          unavailableRetryAfterSeconds: flags.retryAfter503,
          rateLimitedRetryAfterSeconds: flags.retryAfter429,
          backoffCalls: flags.backoffCalls,
        },
        { env: childEnv, onServe: printServe, onClientOutput: (chunk) => process.stderr.write(chunk) },
      );
      const ended = formatRunEnd(obs.end);
      if (ended) process.stderr.write(`${ended}\n`);
      const entries = gradeObservations(obs, flags.only);
      const formatGradeLine = createGradeLineFormatter();
      for (const entry of entries) print(flags.json ? JSON.stringify(entry) : formatGradeLine(entry));
      if (!flags.json) print(formatGradeSummary(entries));
      if (entries.some((e) => e.grade === 'fail')) process.exitCode = EXIT.failed;
    });
}

/** The `client` command with its `grade` subcommand, for the CLI's main program. */
export function createClientCommand(): Command {
  return new Command('client').description('Grade a client of the Session Resume API against the resume retry rules.').addCommand(createGradeCommand());
}
