/**
 * `session-resume-api webhook …`: `check` (the troubleshooting list of the webhook rules) and
 * `send` (deliver events exactly as the service would). Exit codes: 0 ok, 1 a check or
 * delivery failed, 2 usage (see program.ts).
 */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { contract } from '@session-resume-api/runtime/contract';
import { DELIVERY_TIMEOUT_MS } from '@session-resume-api/runtime/delivery/deliver-event';
import { readCliEnv } from './config.js';
import { EXIT } from './program.js';
import { runWebhookCheck } from './webhook-check.js';
import { wholeNumberArgument } from './whole-number-argument.js';
import { formatSendSummary, runWebhookSend } from './webhook-send.js';

interface ConnectionFlags {
  insecureLocalhost?: boolean;
  ca?: string;
  timeoutMs: number;
  secret?: string;
}


/** The options `check` and `send` share. */
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
      new Option('--timeout-ms <ms>', 'deadline of a delivery in ms (the service gives a receiver 5000)')
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

/** The `webhook` command with its `check` and `send` subcommands, for the CLI's main program. */
export function createWebhookCommand(): Command {
  return new Command('webhook')
    .description('Check a webhook URL and send test events to it, as the service delivers them.')
    .addCommand(createCheckCommand())
    .addCommand(createSendCommand());
}
