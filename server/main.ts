/**
 * Entry point of the reference server (`npm start`), one of the two `process.env` readers. Startup
 * problems end the process with one line saying what to fix.
 */
import type { Server } from 'node:http';
import { Command } from 'commander';
import type { Logger } from 'pino';
import { createProcessLogger } from './start-up/process-logger.js';
import { loadConfig, redisTargetOf, SANDBOX_FLAG_HELP, type ServerConfig } from './config.js';
import { devKeyBanner } from './dev-key-banner.js';
import { closeHttpServer } from './http/close-http-server.js';
import { createHttpServer } from './http/create-http-server.js';
import type { Sandbox } from './sandbox/index.js';
import { startDelivery, type DeliveryRuntime } from './start-up/delivery-runtime.js';
import { loadOpenTelemetry } from './start-up/opentelemetry-runtime.js';
import { startMetrics, type MetricsRuntime } from './start-up/metrics-runtime.js';
import type { RedisRuntime } from './start-up/redis-runtime.js';
import { openSessions, type SessionRuntime } from './start-up/session-runtime.js';
import { DELIVERY_CLOSE_MS, REDIS_DOWN_CLOSE_MS, untilStopped } from './start-up/stop-on-signal.js';
import { storeStartUpLine } from './start-up-summary.js';

// What only some modes use (ioredis, BullMQ, the sandbox, the app itself) is imported on demand: start to first answer.

async function main(): Promise<void> {
  const flags = new Command('session-resume-api-server').option('--sandbox', SANDBOX_FLAG_HELP).parse(process.argv).opts<{ sandbox?: boolean }>();
  const config = loadConfig(process.env, flags);
  const logger = createProcessLogger({ level: config.logLevel, service: 'session-resume-api' });
  warnAboutConfig(config, logger);
  const metrics = await startMetrics(config, logger);
  const storeLine = storeStartUpLine(config);
  logger.info(storeLine.fields, storeLine.message);
  const redisTarget = redisTargetOf(config);
  const redis = redisTarget ? await (await import('./start-up/redis-runtime.js')).connectRedisRuntime(config, redisTarget, logger) : undefined;
  const sessions = await openSessions(config, logger, redis);
  const delivery = await startDelivery({ config, logger, ...(redis ? { redis } : {}), ...(metrics ? { metrics: metrics.metrics } : {}) });
  const { app, sandbox, seeds } = await buildApp(config, logger, sessions, delivery);
  const server = await listen(config, app, metrics);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  // Both banners go to stderr, beside the log's warnings.
  if (config.apiKeyGenerated && !config.sandbox) process.stderr.write(devKeyBanner(url, config.apiKeys[0] ?? ''));
  logger.info({ url, port }, 'listening');
  logger.info({ docs: `${url}/docs` }, `API reference at ${url}/docs`);
  await metrics?.listen();
  if (sandbox) {
    const { newSandboxKey, renderSandboxBanner } = await import('./sandbox/index.js');
    const sample = seeds.find((s) => s.status === 'paused') ?? seeds[0];
    process.stderr.write(renderSandboxBanner(url, newSandboxKey(), sample?.id ?? 'sess_paused_1'));
  }
  await untilStopped(logger, () => stop({ server, sandbox, delivery, metrics, redis }));
  logger.info('stopped');
  process.exit(0);
}

function warnAboutConfig(config: ServerConfig, logger: Logger): void {
  if (config.webhookInsecureLocalhost) {
    logger.warn('WEBHOOK_INSECURE_LOCALHOST=1: a plain http:// WEBHOOK_URL on a loopback host is accepted (local testing only; never in production)');
  }
  if (config.apiKeyGenerated && !config.sandbox) {
    // The key itself is in the stderr banner only: the JSON log is shipped and kept, a key is not.
    logger.warn('API_KEYS is unset: generated a development key for this run (printed on stderr, not logged)');
  }
}

async function buildApp(config: ServerConfig, logger: Logger, sessions: SessionRuntime, delivery: DeliveryRuntime) {
  // Imported here so that a broken spec (thrown while loading runtime/contract.ts) is reported
  // like every other startup problem, not as an uncaught import error.
  const { createApp } = await import('./app.js');
  const { checkAppContract } = await import('./start-up/contract-self-check.js');
  const webhookDelivery = delivery.engine;
  const seeds = config.sandbox ? await sessions.source.load() : [];
  const sandbox = config.sandbox
    ? (await import('./sandbox/index.js')).createSandbox({
        seeds,
        logger,
        maxSessions: config.sandboxMaxSessions,
        ...(webhookDelivery ? { webhookDelivery } : {}),
      })
    : undefined;
  if (sandbox) logger.warn('SANDBOX MODE: any sandbox_ key is accepted and CORS is open; never expose this server');
  const { rateLimitStore } = sessions;
  // The sandbox's answers stay checked against the spec, whatever NODE_ENV says.
  const validateResponses = config.validateResponses || config.sandbox;
  // Before listening: a document the validator cannot use stops the start, naming the file.
  await checkAppContract({ validateResponses });
  const opentelemetry = await loadOpenTelemetry();
  const app = await createApp({
    store: sessions.store,
    apiKeys: config.apiKeys,
    logger,
    corsOrigins: config.corsOrigins,
    validateResponses,
    ...(webhookDelivery && !sandbox ? { webhookDelivery } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(opentelemetry ? { opentelemetry } : {}),
    ...(config.rateLimit ? { rateLimit: { ...config.rateLimit, ...(rateLimitStore ? { store: rateLimitStore } : {}) } } : {}),
  });
  return { app, sandbox, seeds };
}

/** Requests are counted when metrics are on. */
async function listen(config: ServerConfig, app: Parameters<typeof createHttpServer>[0], metrics: MetricsRuntime | undefined): Promise<Server> {
  const server = createHttpServer(metrics ? (req, res) => metrics.metrics.countRequests(req, res, () => app(req, res)) : app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(listenError(config, err)));
    server.listen(config.port, config.host, resolve);
  });
  return server;
}

/** A listen failure as the user can fix it: an address in use names the variable that moves it. */
function listenError(config: ServerConfig, err: NodeJS.ErrnoException): Error {
  const address = `${config.host}:${config.port}`;
  if (err.code === 'EADDRINUSE') {
    const other = config.sandbox ? 'a server or another sandbox' : 'another server, or a sandbox given this port';
    return new Error(`${address} is already in use (${other}?): set ${config.portVariable} to a free port, or to 0 to pick one.`, { cause: err });
  }
  if (err.code === 'EACCES') return new Error(`${address} may not be bound by this user: set ${config.portVariable} above 1023.`, { cause: err });
  return err;
}

/**
 * Stops accepting and waits for in-flight requests and every kept-alive connection; the engine
 * closes at the same time, bounded: one slow client (headers sent, body trickling) must not keep
 * pending events from their final attempt and their "dropped" log lines.
 */
async function stop(running: {
  server: Server;
  sandbox: Sandbox | undefined;
  delivery: DeliveryRuntime;
  metrics?: MetricsRuntime;
  redis?: RedisRuntime;
}): Promise<void> {
  const redisDown = running.redis?.stopping() === true;
  const closed = closeHttpServer(running.server);
  // Live /_sandbox/events streams would otherwise hold close() open.
  await running.sandbox?.close();
  const deliveryBound = redisDown ? REDIS_DOWN_CLOSE_MS : DELIVERY_CLOSE_MS;
  await Promise.all([Promise.race([closed, new Promise((resolve) => setTimeout(resolve, DELIVERY_CLOSE_MS).unref())]), running.delivery.close(deliveryBound)]);
  running.server.closeAllConnections();
  await running.metrics?.close();
  await running.redis?.close();
}

// Nothing or `--sandbox` alone: serve. Anything else (a command, --help, --version, an unknown
// option): the operator CLI, which also prints the help.
const command = process.argv.slice(2);
const run = !command.every((arg) => arg === '--sandbox')
  ? import('./cli/program.js').then(async ({ runServerCli }) => {
      const io = { out: (t: string) => process.stdout.write(t), err: (t: string) => process.stderr.write(t) };
      process.exit(await runServerCli(command, process.env, io));
    })
  : main();
run.catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`session-resume-api cannot start: ${message}\n`);
  process.exit(1);
});
