/**
 * `session-resume-api webhook …`: `check` (the troubleshooting list of the webhook rules),
 * `send` (deliver events exactly as the service would) and `grade` (a receiver against every
 * delivery rule). Exit codes: 0 ok, 1 a check, delivery or rule failed, 2 usage (see program.ts).
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { contract } from '@session-resume-api/runtime/contract';
import { DELIVERY_TIMEOUT_MS } from '@session-resume-api/runtime/delivery/deliver-event';
import { DELIVERY_RULES, type DeliveryRuleId } from '@session-resume-api/runtime/delivery/delivery-rules';
import { readCliEnv } from './config.js';
import { EXIT } from './program.js';
import { runWebhookCheck } from './webhook-check.js';
import { wholeNumberArgument } from './whole-number-argument.js';
import { GRADE_DEFAULTS } from './webhook-grade/grade-context.js';
import { createGradeLineFormatter, formatGradeSummary } from './grade-report.js';
import { isRuleId, MAX_GRADE_URLS, runWebhookGrade } from './webhook-grade/run-grade.js';
import { formatSendSummary, runWebhookSend } from './webhook-send.js';

interface ConnectionFlags {
  insecureLocalhost?: boolean;
  ca?: string;
  timeoutMs: number;
  secret?: string;
}

/** The options `check`, `send` and `grade` share. */
function addConnectionOptions(command: Command): Command {
  return command
    .option(
      '--insecure-localhost',
      'local testing: allow a loopback receiver, over plain http:// too, and skip certificate verification for it unless --ca is given',
    )
    .option('--ca <file>', 'PEM file of the CA to trust instead of the system roots (verified on loopback too)')
    .option(
      '--secret <whsec>',
      "sign deliveries as the service does (Standard Webhooks, whsec_ + base64): the receiver's signing secret " +
        '(default: SESSION_RESUME_WEBHOOK_SECRET; unsigned when neither is set)',
    )
    .addOption(
      new Option('--timeout-ms <ms>', `deadline of a delivery in ms (the service gives a receiver ${DELIVERY_TIMEOUT_MS})`)
        .argParser(wholeNumberArgument({ min: 1, max: 600_000 }))
        .default(DELIVERY_TIMEOUT_MS),
    );
}

/** The signing secret: --secret, else SESSION_RESUME_WEBHOOK_SECRET (kept out of `ps`), else none. */
function secretOf(flags: { secret?: string }): { secret?: string } {
  const secret = flags.secret ?? readCliEnv().webhookSecret;
  return secret === undefined ? {} : { secret };
}

/** Reads the --ca file, or stops with a usage error that names it. */
function readCa(command: Command, file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return command.error(`error: cannot read --ca file ${file} (${code}): give a readable PEM file.`, { exitCode: EXIT.usage });
  }
}

function createCheckCommand(): Command {
  const check = new Command('check')
    .description(
      'Check a webhook URL along the troubleshooting list of the webhook rules: URL valid, HTTPS, host resolves, ' +
        'address allowed, TLS handshake, and a 200 to the probe event (webhook.probe: the receiver kit acknowledges it ' +
        'without calling its handler) within 5 s. Stops at the first failure (exit 1).',
    )
    .argument('<url>', 'the webhook URL (https://...; http:// only for loopback with --insecure-localhost)');
  return addConnectionOptions(check).action(async (url: string, flags: ConnectionFlags, command: Command) => {
    const ok = await runWebhookCheck(url, {
      insecureLocalhost: flags.insecureLocalhost,
      ca: readCa(command, flags.ca),
      timeoutMs: flags.timeoutMs,
      ...secretOf(flags),
    });
    if (!ok) process.exitCode = EXIT.failed;
  });
}

interface SendFlags extends ConnectionFlags {
  event: string;
  session: string;
  timestamp?: string;
  times: number;
  concurrency: number;
  json?: boolean;
}

function createSendCommand(): Command {
  const send = new Command('send')
    .description(
      'Deliver one session event N times with the same event, session id and timestamp, exactly as the service would ' +
        '(POST JSON, 5 s deadline, only 200 counts, no redirects); counts the answers marked duplicate. ' +
        'Exit 1 if any delivery failed.',
    )
    .argument('<url>', 'the webhook URL (https://...; http:// only for loopback with --insecure-localhost)')
    .requiredOption('--event <name>', 'value of payload.event, e.g. session.resumed')
    .requiredOption('--session <id>', 'value of payload.session.id')
    .option('--timestamp <t>', 'value of payload.timestamp (default: now, RFC 3339, fixed once for all N)')
    .addOption(new Option('--times <n>', 'how many deliveries').argParser(wholeNumberArgument({ min: 1, max: 100_000 })).default(1))
    .addOption(new Option('--concurrency <c>', 'how many at a time').argParser(wholeNumberArgument({ min: 1, max: 1000 })).default(1))
    .option('--json', 'print the summary as JSON');
  return addConnectionOptions(send).action(async (url: string, flags: SendFlags, command: Command) => {
    const event = { event: flags.event, session: { id: flags.session }, timestamp: flags.timestamp ?? new Date().toISOString() };
    const valid = contract.validate('SessionEvent', event);
    if (!valid.ok) command.error(`error: the event is not a SessionEvent (${valid.message}).`, { exitCode: EXIT.usage });
    const summary = await runWebhookSend(url, event, {
      times: flags.times,
      concurrency: flags.concurrency,
      insecureLocalhost: flags.insecureLocalhost,
      ca: readCa(command, flags.ca),
      timeoutMs: flags.timeoutMs,
      ...secretOf(flags),
    });
    process.stdout.write(flags.json ? `${JSON.stringify(summary)}\n` : `${formatSendSummary(summary).join('\n')}\n`);
    if (summary.failed > 0) process.exitCode = EXIT.failed;
  });
}

interface GradeFlags extends ConnectionFlags {
  json?: boolean;
  observe?: string;
  burst: number;
  copies: number;
  delayMs: number;
  settleMs: number;
  only?: DeliveryRuleId[];
}

/** `--only ack,dedupe`: rule ids of the list, checked. */
function ruleIds(value: string): DeliveryRuleId[] {
  const ids = value.split(',').map((id) => id.trim());
  const unknown = ids.filter((id) => !isRuleId(id));
  if (unknown.length > 0) throw new InvalidArgumentError(`no rule ${unknown.join(', ')}; the rules are ${DELIVERY_RULES.map((r) => r.id).join(', ')}.`);
  return ids as DeliveryRuleId[];
}

function createGradeCommand(): Command {
  const grade = new Command('grade')
    .description(
      'Grade a receiver against every delivery rule (docs/cli.md#webhook-grade): 200 within 5 s alone and under a burst, ' +
        'duplicates (again, later, concurrent, at another instance) answered 200 and not processed again, every payload form, ' +
        'unknown events, late and out-of-order events, and with --secret its signature checks. One line per rule: pass, FAIL ' +
        'or n/o (not observable) with the evidence. Exit 1 if any rule failed.',
    )
    .argument('<url...>', `the receiver's URL; several: one per instance of the same receiver (at most ${MAX_GRADE_URLS})`)
    .option('--json', 'print one JSON object per rule: {"rule","title","grade","evidence"}')
    .addOption(new Option('--only <rules>', 'grade only these rules, comma-separated (https is always checked)').argParser(ruleIds))
    .option('--observe <url>', 'a URL of the receiver answering {"<event> <session id> <timestamp>": times processed} (docs/cli.md)')
    .addOption(
      new Option('--burst <n>', 'concurrent distinct deliveries of the burst')
        .argParser(wholeNumberArgument({ min: 1, max: 1000 }))
        .default(GRADE_DEFAULTS.burst),
    )
    .addOption(
      new Option('--copies <n>', 'copies of one event sent at once').argParser(wholeNumberArgument({ min: 2, max: 100 })).default(GRADE_DEFAULTS.copies),
    )
    .addOption(
      new Option('--delay-ms <ms>', 'wait before the late duplicate').argParser(wholeNumberArgument({ min: 0, max: 600_000 })).default(GRADE_DEFAULTS.delayMs),
    )
    .addOption(
      new Option('--settle-ms <ms>', 'how long --observe may take to count processed events')
        .argParser(wholeNumberArgument({ min: 0, max: 60_000 }))
        .default(GRADE_DEFAULTS.settleMs),
    );
  return addConnectionOptions(grade).action(async (urls: string[], flags: GradeFlags, command: Command) => {
    if (urls.length > MAX_GRADE_URLS) command.error(`error: at most ${MAX_GRADE_URLS} URLs (one per instance).`, { exitCode: EXIT.usage });
    const print = (line: string) => process.stdout.write(`${line}\n`);
    const formatGradeLine = createGradeLineFormatter();
    const entries = await runWebhookGrade(
      urls,
      {
        insecureLocalhost: flags.insecureLocalhost,
        ca: readCa(command, flags.ca),
        timeoutMs: flags.timeoutMs,
        burst: flags.burst,
        copies: flags.copies,
        delayMs: flags.delayMs,
        settleMs: flags.settleMs,
        ...(flags.observe ? { observe: flags.observe } : {}),
        ...(flags.only ? { only: flags.only } : {}),
        ...secretOf(flags),
      },
      (entry) => print(flags.json ? JSON.stringify(entry) : formatGradeLine(entry)),
    );
    if (!flags.json) print(formatGradeSummary(entries));
    if (entries.some((e) => e.grade === 'fail')) process.exitCode = EXIT.failed;
  });
}

/** The `webhook` command with its `check`, `send` and `grade` subcommands, for the CLI's main program. */
export function createWebhookCommand(): Command {
  return new Command('webhook')
    .description('Check a webhook URL, send test events to it as the service delivers them, and grade a receiver against the delivery rules.')
    .addCommand(createCheckCommand())
    .addCommand(createSendCommand())
    .addCommand(createGradeCommand());
}
