/**
 * `session-resume-api watch`: grades traffic that happens anyway against the contract, its
 * shapes and its behaviour. As a recording proxy (`--target`, `--port`, and optionally in front
 * of a webhook receiver) it prints one line per drift as it happens and the report when stopped
 * (Ctrl-C, SIGTERM); with `--from` it reads a HAR 1.2 file. Exit codes: 0 no drift, 1 drift,
 * 2 usage (see program.ts).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseRetrySchedule } from '@session-resume-api/runtime/delivery/retry-rules';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { redactUrl, redactWebhookUrl } from '@session-resume-api/runtime/redact-url';
import { readCliEnv } from './config.js';
import { EXIT, UsageError } from './program.js';
import { HarError } from './watch/har.js';
import { readHarFile } from './watch/har-file.js';
import { startWatchProxy, type WatchProxy } from './watch/watch-proxy.js';
import {
  createWatcher,
  DEFAULT_WINDOW_ENTRIES,
  formatDriftLine,
  formatWatchLine,
  formatWatchSummary,
  type Watcher,
  type WatcherOptions,
} from './watch/watcher.js';
import { wholeNumberArgument } from './whole-number-argument.js';

interface WatchFlags {
  target?: string;
  port?: number;
  webhookTarget?: string;
  webhookPort?: number;
  from?: string;
  secret?: string;
  schedule?: number[];
  window: number;
  json?: boolean;
}

const port = wholeNumberArgument({ min: 0, max: 65_535 });

function schedule(value: string): number[] {
  try {
    return parseRetrySchedule(value);
  } catch (error) {
    if (error instanceof OptionsError) throw new InvalidArgumentError(error.message);
    throw error;
  }
}

/** The `watch` command, for the CLI's main program. */
export function createWatchCommand(): Command {
  return new Command('watch')
    .description(
      'Watch real traffic for drift from the contract: every exchange against the spec’s shapes, and the behaviour it states ' +
        '(idempotent replays, Retry-After, the not_paused answer, error shape, rate-limit fields; for webhooks the signature with ' +
        '--secret, one webhook-id per event, attempt spacing, timestamps). As a proxy (--target, --port) it prints a line per drift ' +
        'as it happens and the report when stopped; with --from it reads a HAR file. One line per rule: pass, DRIFT or n/o. ' +
        'Exit 1 on any drift. The Authorization header, signatures and tokens are never printed.',
    )
    .option('--target <url>', 'the API to watch: requests sent to --port are passed to it')
    .addOption(new Option('--port <n>', 'port the API proxy listens on (127.0.0.1; 0: a free one)').argParser(port))
    .option('--webhook-target <url>', 'a webhook receiver to watch: deliveries sent to --webhook-port are passed to it')
    .addOption(new Option('--webhook-port <n>', 'port the webhook proxy listens on (127.0.0.1; 0: a free one)').argParser(port))
    .option('--from <file.har>', 'grade traffic recorded elsewhere (HAR 1.2) instead of proxying')
    .option('--secret <whsec>', "the receiver's signing secret: verify every delivery's signature (default: SESSION_RESUME_WEBHOOK_SECRET)")
    .addOption(new Option('--schedule <delays>', "the service's delivery schedule when it is not the contract's, e.g. 0,5s,5m").argParser(schedule))
    .addOption(
      new Option('--window <n>', 'idempotency keys, webhook-ids and events remembered for the cross-exchange rules')
        .argParser(wholeNumberArgument({ min: 1, max: 1_000_000 }))
        .default(DEFAULT_WINDOW_ENTRIES),
    )
    .option('--json', 'print one JSON object per rule: {"rule","title","grade","evidence","exchanges"} (drift lines go to stderr)')
    .action(async (flags: WatchFlags) => {
      const watcherOptions = { ...checkUsage(flags), onDrift: undefined as WatcherOptions['onDrift'] };
      const live = flags.json ? process.stderr : process.stdout;
      watcherOptions.onDrift = (drift) => live.write(`${formatDriftLine(drift)}\n`);
      let watcher: Watcher;
      try {
        watcher = createWatcher(watcherOptions);
      } catch (error) {
        if (error instanceof OptionsError) throw new UsageError(error.message);
        throw error;
      }
      if (flags.from !== undefined) await readHar(flags.from, watcher);
      else await proxyUntilStopped(flags, watcher);
      const entries = watcher.report();
      for (const entry of entries) process.stdout.write(`${flags.json ? JSON.stringify(entry) : formatWatchLine(entry)}\n`);
      if (!flags.json) process.stdout.write(`${formatWatchSummary(entries, watcher.counts())}\n`);
      if (entries.some((e) => e.grade === 'drift')) process.exitCode = EXIT.failed;
    });
}

/** Rules out bad combinations; returns the watcher's settings. */
function checkUsage(flags: WatchFlags): WatcherOptions {
  const proxying = flags.target !== undefined || flags.webhookTarget !== undefined;
  if (flags.from !== undefined && proxying) throw new UsageError('give either --from <file.har> or --target/--webhook-target, not both.');
  if (flags.from === undefined && !proxying) throw new UsageError('give --target <url> --port <n> to proxy, or --from <file.har> to read recorded traffic.');
  if ((flags.target === undefined) !== (flags.port === undefined)) throw new UsageError('--target and --port go together.');
  if ((flags.webhookTarget === undefined) !== (flags.webhookPort === undefined)) throw new UsageError('--webhook-target and --webhook-port go together.');
  for (const [name, url] of [
    ['--target', flags.target],
    ['--webhook-target', flags.webhookTarget],
  ] as const) {
    if (url !== undefined && !/^https?:\/\/[^/]/i.test(url)) throw new UsageError(`${name} must be an http:// or https:// URL.`);
  }
  const secret = flags.secret ?? readCliEnv().webhookSecret;
  return { window: flags.window, ...(secret === undefined ? {} : { secret }), ...(flags.schedule ? { scheduleMs: flags.schedule } : {}) };
}

async function readHar(file: string, watcher: Watcher): Promise<void> {
  let exchanges;
  try {
    exchanges = await readHarFile(file);
  } catch (error) {
    if (error instanceof HarError) throw new UsageError(`${file} is refused: ${error.message}.`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined) throw new UsageError(`cannot read ${file} (${code}).`);
    throw error;
  }
  for (const exchange of exchanges) watcher.observe(exchange);
}

/** Proxies until SIGINT or SIGTERM, then closes the proxies. */
async function proxyUntilStopped(flags: WatchFlags, watcher: Watcher): Promise<void> {
  const proxies: WatchProxy[] = [];
  const onExchange = (exchange: Parameters<Watcher['observe']>[0]) => void watcher.observe(exchange);
  try {
    if (flags.target !== undefined) proxies.push(await startWatchProxy({ target: flags.target, port: flags.port as number, kind: 'api', onExchange }));
    if (flags.webhookTarget !== undefined)
      proxies.push(await startWatchProxy({ target: flags.webhookTarget, port: flags.webhookPort as number, kind: 'webhook', onExchange }));
  } catch (error) {
    await Promise.all(proxies.map((p) => p.close()));
    throw new UsageError(`cannot listen: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
  }
  if (flags.target !== undefined) process.stderr.write(`watch: API ${proxies[0]?.url} → ${redactUrl(flags.target)}\n`);
  if (flags.webhookTarget !== undefined) process.stderr.write(`watch: webhooks ${proxies.at(-1)?.url} → ${redactWebhookUrl(flags.webhookTarget)}\n`);
  process.stderr.write('watch: watching; stop with Ctrl-C for the report\n');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await Promise.all(proxies.map((p) => p.close()));
}
