/**
 * Entry point of the reference server (`npm start`): environment → typed config → store,
 * sender, app → listen; graceful shutdown on SIGTERM/SIGINT. One of the two files that read
 * `process.env`. Startup problems end the process with one line saying what to fix.
 */
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { pino } from 'pino';
import { loadConfig, redisTargetOf, SANDBOX_FLAG_HELP, type ServerConfig } from './config.js';
import { devKeyBanner } from './dev-key-banner.js';
import { closeHttpServer } from './http/close-http-server.js';
import { createHttpServer } from './http/create-http-server.js';
import { createMemorySessionStore } from './sessions/memory-session-store.js';
import { seedStore } from './sessions/seed-on-start.js';
import { DEMO_SESSIONS, openSeedSource } from './sessions/session-seeds.js';
import type { SessionStore } from './sessions/session-store.js';
import type { DeliveryObserver } from './webhooks/delivery-types.js';
import type { DeliveryEngine } from './webhooks/delivery-engine.js';
import { webhookStartUpLine } from './start-up-summary.js';
import type { OutboxRuntime } from './start-up/outbox-runtime.js';
import type { RedisRuntime } from './start-up/redis-runtime.js';

// Start to first answer: what only some modes use (ioredis and BullMQ, the webhook
// sender, the sandbox, the app itself) is imported when the configuration asks for it.

/** In-flight requests and pending webhooks get this long after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  const flags = new Command('session-resume-api-server')
    .option('--sandbox', SANDBOX_FLAG_HELP)
    .parse(process.argv)
    .opts<{ sandbox?: boolean }>();
  const config = loadConfig(process.env, flags);
  const logger = pino({ level: config.logLevel, base: { service: 'session-resume-api', pid: process.pid } });
  if (config.webhookInsecureLocalhost) {
    logger.warn('WEBHOOK_INSECURE_LOCALHOST=1: a plain http:// WEBHOOK_URL on a loopback host is accepted (local testing only; never in production)');
  }
  const metrics = config.metricsPort === undefined ? undefined : (await import('./metrics/index.js')).createServerMetrics();
  if (config.apiKeyGenerated && !config.sandbox) {
    logger.warn({ apiKey: config.apiKeys[0] }, 'API_KEYS is unset: generated a development key for this run');
  }

  const redisTarget = redisTargetOf(config);
  const onRedis: RedisRuntime | undefined = redisTarget
    ? await import('./start-up/redis-runtime.js').then(({ openRedisRuntime }) => openRedisRuntime(config, redisTarget, logger))
    : undefined;
  const redis = onRedis?.redis;
  const store: SessionStore =
    onRedis?.store ?? createMemorySessionStore({ idempotencyTtlSeconds: config.idempotency.ttlSeconds, idempotencyMaxKeys: config.idempotency.maxKeys });
  const rateLimitStore = onRedis?.rateLimitStore;

  const source = await openSeedSource(config.sessionsFile);
  const seeding = await seedStore({
    store,
    source,
    ...(onRedis ? { marker: onRedis.marker } : {}),
  });
  logger.info(
    {
      source: source.label,
      store: config.redisClusterNodes ? 'redis-cluster' : config.redisUrl ? 'redis' : 'memory',
      ...seeding,
      ...(config.sessionsFile ? {} : { sessions: DEMO_SESSIONS }),
    },
    seeding.skipped ? 'sessions already seeded from this source: nothing to do' : 'sessions seeded',
  );

  // One delivery engine: on Redis its queue is durable and every instance delivers (unless
  // WEBHOOK_WORKER=0); in memory its queue is NOT durable: pending events die with the process.
  const outbox: OutboxRuntime | undefined = config.webhook && onRedis ? await onRedis.startOutbox(metrics?.observer) : undefined;
  const webhookSender = outbox?.outbox ?? (config.webhook ? await startWebhookSender(config.webhook, logger, metrics?.observer) : undefined);
  const startUp = webhookStartUpLine(config);
  logger.info(startUp.fields, startUp.message);
  // The outbox gauge reads the engine's counts at each scrape.
  if (metrics && webhookSender) metrics.watchOutbox(webhookSender);

  // Imported here so that a broken spec (thrown while loading runtime/contract.ts) is reported
  // like every other startup problem, not as an uncaught import error.
  const { createApp } = await import('./app.js');
  // Sandbox worlds start from the same seed set, each on its own (parsed once here).
  const seeds = config.sandbox ? await source.load() : [];
  const sandbox = config.sandbox ? (await import('./sandbox/index.js')).createSandbox({ seeds, logger, maxSessions: config.sandboxMaxSessions, ...(webhookSender ? { webhookSender } : {}) }) : undefined;
  if (sandbox) logger.warn('SANDBOX MODE: any sandbox_ key is accepted and CORS is open; never expose this server');
  const app = await createApp({
    store,
    apiKeys: config.apiKeys,
    logger,
    corsOrigins: config.corsOrigins,
    // The sandbox's answers stay checked against the spec, whatever NODE_ENV says.
    validateResponses: config.validateResponses || config.sandbox,
    ...(webhookSender && !sandbox ? { webhookSender } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(config.rateLimit ? { rateLimit: { ...config.rateLimit, ...(rateLimitStore ? { store: rateLimitStore } : {}) } } : {}),
  });

  // Default timeouts: 10 s for headers, 30 s for the whole request (Node: 60 s and 300 s).
  const server = createHttpServer(metrics ? (req, res) => metrics.countRequests(req, res, () => app(req, res)) : app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (config.apiKeyGenerated && !config.sandbox) process.stderr.write(devKeyBanner(`http://${config.host}:${port}`, config.apiKeys[0] ?? ''));
  logger.info({ url: `http://${config.host}:${port}`, port }, 'listening');
  logger.info({ docs: `http://${config.host}:${port}/docs` }, `API reference at http://${config.host}:${port}/docs`);
  const metricsListener =
    metrics && config.metricsPort !== undefined
      ? await (await import('./metrics/index.js')).startMetricsListener({ registry: metrics.registry, port: config.metricsPort, host: config.host })
      : undefined;
  if (metricsListener) logger.info({ metrics: metricsListener.url, port: metricsListener.port }, `metrics at ${metricsListener.url}`);
  if (sandbox) {
    const { newSandboxKey, renderSandboxBanner } = await import('./sandbox/index.js');
    const sample = seeds.find((s) => s.status === 'paused') ?? seeds[0];
    process.stdout.write(renderSandboxBanner(`http://${config.host}:${port}`, newSandboxKey(), sample?.id ?? 'sess_paused_1'));
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    // Stops accepting and resolves when in-flight requests are done and every kept-alive
    // connection is closed. The sender closes at the same time, bounded: one slow client
    // (headers sent, body trickling) must not keep pending events from their final attempt
    // and their "dropped" log lines.
    const closed = closeHttpServer(server);
    // Live /_sandbox/events streams would otherwise hold close() open.
    await sandbox?.close();
    const senderBound = SHUTDOWN_GRACE_MS - 2000;
    await Promise.all([
      Promise.race([closed, new Promise((resolve) => setTimeout(resolve, senderBound).unref())]),
      (outbox ?? webhookSender)?.close({ timeoutMs: senderBound }),
    ]);
    server.closeAllConnections();
    await metricsListener?.close();
    await redis?.quit().catch(() => undefined);
    logger.info('stopped');
    process.exit(0);
  };
  // `on`, not `once`: a repeated signal must not kill the process mid-shutdown.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

async function startWebhookSender(
  webhook: NonNullable<ServerConfig['webhook']>,
  logger: pino.Logger,
  observer: DeliveryObserver | undefined,
): Promise<DeliveryEngine> {
  // createWebhookSender logs the WEBHOOK_ALLOW_PRIVATE warning itself (origin only: the path may hold a token).
  // Plain http:// passed the config only for loopback receivers (sandbox or WEBHOOK_INSECURE_LOCALHOST=1).
  const insecureLocalhost = webhook.insecureLocalhost === true;
  const ca = webhook.caFile ? await readFile(webhook.caFile) : undefined;
  const { createWebhookSender } = await import('./webhooks/create-webhook-sender.js');
  return createWebhookSender({
    url: webhook.url,
    allowPrivate: webhook.allowPrivate,
    insecureLocalhost,
    secret: webhook.secret,
    schedule: webhook.schedule,
    concurrency: webhook.concurrency,
    ...(ca ? { ca } : {}),
    ...(observer ? { observer } : {}),
    logger: logger.child({ component: 'webhook-sender' }),
  });
}

// Nothing or `--sandbox` alone: serve. Anything else (a command, --help, --version, an unknown
// option): the operator CLI, which also prints the help.
const command = process.argv.slice(2);
const run =
  !command.every((arg) => arg === '--sandbox')
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
