/**
 * `session-resume-api listen --forward-to <url>`: each session event of a sandbox world,
 * forwarded to a local receiver as the service delivers it (signed, retried). Ctrl-C stops it
 * (exit 0); a refused key or a server without the sandbox is exit 2.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { DELIVERY_TIMEOUT_MS } from '@session-resume-api/runtime/delivery/deliver-event';
import { parseRetrySchedule, STANDARD_WEBHOOKS_SCHEDULE_MS } from '@session-resume-api/runtime/delivery/retry-rules';
import { readDeliveryProfile, type DeliveryProfile } from '@session-resume-api/runtime/delivery/delivery-rules';
import { isLoopbackHost, validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';
import { redactWebhookUrl } from '@session-resume-api/runtime/redact-url';
import { newSandboxKey } from '@session-resume-api/runtime/sandbox-key';
import { readCliEnv, type CliEnv } from './config.js';
import { formatDelay } from './format-delay.js';
import { runListen } from './listen/run-listen.js';
import { UsageError } from './program.js';
import { wholeNumberArgument } from './whole-number-argument.js';

/** Where `npm run sandbox` listens by default. */
const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:3100';

interface ListenFlags {
  forwardTo: string;
  baseUrl?: string;
  apiKey?: string;
  secret?: string;
  retrySchedule: number[];
  timeoutMs: number;
  profile?: DeliveryProfile;
}

/** `--profile '{"duplicateRate":0.5}'`: a delivery profile as JSON, read by the list's bounds. */
const deliveryProfile = (value: string): DeliveryProfile => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('expected a JSON object, e.g. \'{"duplicateRate":0.5,"outOfOrderRate":0.3}\'.');
  }
  const reading = readDeliveryProfile(parsed);
  if (!reading.ok) throw new InvalidArgumentError(reading.message);
  return reading.profile;
};

const schedule = (value: string): number[] => {
  try {
    return parseRetrySchedule(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};

const milliseconds = wholeNumberArgument({ min: 1, max: 600_000 });

/** The target, checked: https:// by the webhook URL rules, or any loopback URL (http:// too) with no flag. */
function checkTarget(url: string): { url: string; insecureLocalhost: boolean } {
  const check = validateWebhookUrl(url, { allowLoopbackHttp: true, allowLoopback: true });
  if (!check.ok) throw new UsageError(`--forward-to ${redactWebhookUrl(url)} is refused: ${check.reason}`);
  return { url: check.url.href, insecureLocalhost: isLoopbackHost(check.url.hostname) };
}

/** Creates the `listen` command; `env` defaults to the process environment (SESSION_RESUME_*). */
export function createListenCommand(env: CliEnv = readCliEnv()): Command {
  return new Command('listen')
    .description(
      "Follow a sandbox world's session events and forward each one to --forward-to as the service delivers it: a signed " +
        "Standard Webhooks POST (webhook-id = the feed entry's), retried on the delivery schedule, with the duplicates, " +
        "delays and reordering of the world's delivery profile (default: none). Prints the signing secret (masked when given) " +
        'and one line per attempt (time, event, session id, status, ms). Ctrl-C stops it.',
    )
    .requiredOption('--forward-to <url>', 'where to deliver: https://…, or http:// on localhost / a loopback address (no flag needed)')
    .option('--base-url <url>', `the sandbox (npm run sandbox; env: SESSION_RESUME_BASE_URL; default ${DEFAULT_SANDBOX_URL})`)
    .option('--api-key <key>', 'a sandbox_ key: the world to follow (env: SESSION_RESUME_API_KEY; default: a new one, printed)')
    .option('--secret <whsec>', 'the whsec_ secret to sign with (env: SESSION_RESUME_WEBHOOK_SECRET; default: generated and printed)')
    .addOption(
      new Option('--retry-schedule <delays>', 'delay before each attempt, each with a unit ms, s, m, h or d (a bare number is seconds), e.g. 0,500ms,5s')
        .argParser(schedule)
        .default([...STANDARD_WEBHOOKS_SCHEDULE_MS], `the delivery engine's, ${STANDARD_WEBHOOKS_SCHEDULE_MS.map(formatDelay).join(',')}`),
    )
    .addOption(new Option('--timeout-ms <ms>', 'deadline of each attempt in ms').argParser(milliseconds).default(DELIVERY_TIMEOUT_MS))
    .addOption(
      new Option(
        '--profile <json>',
        "a delivery profile replacing the world's (docs/mock-sandbox-msw.md), e.g. '{\"duplicateRate\":0.5}' (default: the world's, PUT /_sandbox/delivery-profile, followed live)",
      ).argParser(deliveryProfile),
    )
    .action(async (flags: ListenFlags) => {
      const target = checkTarget(flags.forwardTo);
      const givenKey = flags.apiKey ?? env.apiKey;
      const apiKey = givenKey ?? newSandboxKey();
      if (!apiKey.startsWith('sandbox_')) throw new UsageError('--api-key must be a sandbox_ key: listen follows a sandbox world.');
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        await runListen({
          forwardTo: target.url,
          insecureLocalhost: target.insecureLocalhost,
          baseUrl: (flags.baseUrl ?? env.baseUrl ?? DEFAULT_SANDBOX_URL).replace(/\/+$/, ''),
          apiKey,
          apiKeyGenerated: givenKey === undefined,
          ...((flags.secret ?? env.webhookSecret) ? { secret: flags.secret ?? env.webhookSecret } : {}),
          schedule: flags.retrySchedule,
          timeoutMs: flags.timeoutMs,
          ...(flags.profile ? { profile: flags.profile } : {}),
          signal: controller.signal,
          print: (line) => process.stdout.write(`${line}\n`),
        });
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    });
}
