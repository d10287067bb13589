/**
 * `session-resume-api-server <command>`: operator commands beside the server (`worker`, `webhooks …`,
 * `seed [--reset]`), the `--help` listing every command and environment variable, and `--version`.
 */
import { Command, CommanderError, Help } from 'commander';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { createProcessLogger } from '../start-up/process-logger.js';
import { loadConfig, redisTargetOf, SANDBOX_FLAG_HELP, type Env, type ServerConfig } from '../config.js';
import { SERVER_VERSION } from '../version.js';
import { renderEnvironmentHelp } from './environment-help.js';
import type { RedisTarget } from '../redis/create-redis-connection.js';
import { startDelivery } from '../start-up/delivery-runtime.js';
import { startMetrics } from '../start-up/metrics-runtime.js';
import { connectRedisRuntime } from '../start-up/redis-runtime.js';
import { DELIVERY_CLOSE_MS, REDIS_DOWN_CLOSE_MS, untilStopped } from '../start-up/stop-on-signal.js';
import { createSeedCommand } from './seed-command.js';
import { createWebhooksCommand } from './webhooks-command.js';
import { UsageError } from '@session-resume-api/runtime/usage-error';
import { addVersionFlags } from '@session-resume-api/runtime/cli-version';
import type { CommandOutput } from './command-output.js';
import { storeStartUpLine } from '../start-up-summary.js';
import type { RedisDelivery } from '../webhooks/redis-delivery.js';

/** The exit code of a usage problem (unknown option or command, missing argument). */
const USAGE_EXIT = 2;

/**
 * Runs one command; resolves with the exit code (0 done, 1 failed, 2 a usage error).
 * @example await runServerCli(['webhooks', 'replay', '--all'], process.env, { out: console.log, err: console.error });
 */
export async function runServerCli(argv: string[], env: Env, io: CommandOutput): Promise<number> {
  let code = 0;
  const program = new Command('session-resume-api-server')
    .description('Reference server of the Session Resume API; without a command it serves HTTP.')
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  addVersionFlags(program, SERVER_VERSION)
    // Served by server/main.ts, which never hands a bare `--sandbox` to this program; listed for --help.
    .option('--sandbox', SANDBOX_FLAG_HELP)
    .exitOverride()
    .addHelpText('after', renderEnvironmentHelp());
  program
    .command('worker')
    .description('deliver webhooks from the Redis delivery queue without serving HTTP (REDIS_URL or REDIS_CLUSTER_NODES, WEBHOOK_URL); stops on SIGTERM')
    .action(async () => {
      code = await runWorker(redisConfig(env));
    });
  program.addCommand(createSeedCommand(env));
  program.addCommand(
    createWebhooksCommand(
      (work) => withRedisDelivery(redisConfig(env), io, work),
      io,
      (exit) => (code = exit),
    ),
  );
  listEveryCommand(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    // Help and version end in 0; any other parse failure is a usage error, 2, as in the client's command line.
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : USAGE_EXIT;
    io.err(`session-resume-api-server: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof UsageError ? USAGE_EXIT : 1;
  }
}

/**
 * The root's help lists every command, nested ones by their whole path (`webhooks replay [id]`). A
 * command with commands of its own is listed too when it takes options or arguments: it runs by
 * itself (`webhooks endpoint [--json]` beside `webhooks endpoint enable`), a bare group does not.
 */
function listEveryCommand(program: Command): void {
  const help = new Help();
  const runsItself = (cmd: Command) => cmd.options.length > 0 || cmd.registeredArguments.length > 0;
  const nested = (cmd: Command): Command[] =>
    help
      .visibleCommands(cmd)
      .flatMap((sub) => (sub.commands.length ? [...(runsItself(sub) ? [sub] : []), ...nested(sub)] : cmd !== program && sub.name() === 'help' ? [] : [sub]));
  const path = (cmd: Command): string[] => (cmd.parent && cmd.parent !== program ? [...path(cmd.parent), cmd.parent.name()] : []);
  program.configureHelp({
    visibleCommands: (cmd) => (cmd === program ? nested(program) : help.visibleCommands(cmd)),
    subcommandTerm: (cmd) => [...path(cmd), help.subcommandTerm(cmd)].join(' '),
  });
}

function redisConfig(env: Env): ServerConfig & { target: RedisTarget } {
  const config = loadConfig(env);
  const target = redisTargetOf(config);
  if (!target) throw new OptionsError('The worker and the webhooks commands run on Redis: set REDIS_URL or REDIS_CLUSTER_NODES.', { option: 'REDIS_URL' });
  return { ...config, target };
}

async function withRedisDelivery(
  config: ReturnType<typeof redisConfig>,
  io: CommandOutput,
  run: (delivery: RedisDelivery, keyPrefix: string) => Promise<number>,
) {
  const logger = createProcessLogger({ level: 'warn', fd: 2 });
  // A job without an event (written under this prefix by something else) is named and skipped: the rest is still shown.
  const onMalformedJob = (id: string, problem: string) => io.err(`skipped job ${id}: ${problem} (not an event this server wrote)\n`);
  const redis = await connectRedisRuntime(config, config.target, logger, { onMalformedJob });
  const runtime = await redis.startRedisDelivery({ worker: false, relay: false });
  try {
    return await run(runtime.delivery, config.redisKeyPrefix);
  } finally {
    await runtime.close();
    await redis.close();
  }
}

/** Delivers webhooks (and runs the outbox relay) on Redis without serving HTTP, until SIGTERM or SIGINT. */
async function runWorker(config: ReturnType<typeof redisConfig>): Promise<number> {
  if (!config.webhook) throw new OptionsError('A worker delivers webhooks: set WEBHOOK_URL.', { option: 'WEBHOOK_URL' });
  const logger = createProcessLogger({ level: config.logLevel, service: 'session-resume-api-worker' });
  const storeLine = storeStartUpLine(config);
  logger.info(storeLine.fields, storeLine.message);
  const redis = await connectRedisRuntime(config, config.target, logger);
  // A worker counts its own attempts and deliveries; METRICS_PORT works as on the server.
  const metrics = await startMetrics(config, logger);
  const delivery = await startDelivery({ config, logger, redis, worker: true, ...(metrics ? { metrics: metrics.metrics } : {}) });
  await metrics?.listen();
  logger.info('webhook worker running');
  await untilStopped(logger, async () => {
    await delivery.close(redis.stopping() ? REDIS_DOWN_CLOSE_MS : DELIVERY_CLOSE_MS);
    await metrics?.close();
    await redis.close();
  });
  logger.info('stopped');
  return 0;
}
