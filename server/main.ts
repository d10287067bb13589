/**
 * Entry point of the reference server (`npm start`): environment → typed config → store,
 * sender, app → listen; graceful shutdown on SIGTERM/SIGINT. One of the two files that read
 * `process.env`. Startup problems end the process with one line saying what to fix.
 */
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { loadConfig, type ServerConfig } from './config.js';
import { createHttpServer } from './http/create-http-server.js';
import { createRedisRateLimitStore } from './http/redis-rate-limit-store.js';
import { createMemorySessionStore } from './sessions/memory-session-store.js';
import { createRedisClient, waitUntilReady } from './sessions/redis-client.js';
import { createRedisSessionStore } from './sessions/redis-session-store.js';
import { DEMO_SESSIONS, loadSessionSeeds } from './sessions/session-seeds.js';
import type { SessionStore } from './sessions/session-store.js';
import { createWebhookSender } from './webhooks/create-webhook-sender.js';
import type { WebhookSender } from './webhooks/webhook-sender.js';

/** In-flight requests and pending webhooks get this long after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  const flags = new Command('session-resume-api-server')
    .option('--sandbox', 'sandbox mode: every sandbox_ key gets its own world, /_sandbox control API, CORS open (never for production)')
    .parse(process.argv)
    .opts<{ sandbox?: boolean }>();
  const config = loadConfig(process.env, flags);
  const logger = pino({ level: config.logLevel, base: { service: 'session-resume-api', pid: process.pid } });
  if (config.apiKeyGenerated && !config.sandbox) {
    logger.warn({ apiKey: config.apiKeys[0] }, 'API_KEYS is unset: generated a development key for this run');
  }

  let redis: Redis | undefined;
  let store: SessionStore;
  let rateLimitStore;
  if (config.redisUrl) {
    redis = createRedisClient(config.redisUrl, {
      onError: (err) => logger.warn({ err: err.message }, 'Redis connection error'),
    });
    await waitUntilReady(redis);
    store = createRedisSessionStore({ client: redis, keyPrefix: config.redisKeyPrefix });
    rateLimitStore = createRedisRateLimitStore(redis, `${config.redisKeyPrefix}rate:`);
  } else {
    store = createMemorySessionStore();
  }

  const seeds = config.sessionsFile ? await loadSessionSeeds(config.sessionsFile) : DEMO_SESSIONS;
  const { created } = await store.seed(seeds);
  logger.info(
    {
      source: config.sessionsFile ?? 'demo set',
      store: config.redisUrl ? 'redis' : 'memory',
      created,
      kept: seeds.length - created,
      ...(config.sessionsFile ? {} : { sessions: seeds }),
    },
    'sessions seeded',
  );

  const webhookSender = config.webhook ? await startWebhookSender(config.webhook, logger) : undefined;

  // Imported here so that a broken spec (thrown while loading spec/contract.ts) is reported
  // like every other startup problem, not as an uncaught import error.
  const { createApp } = await import('./app.js');
  const sandbox = config.sandbox ? (await import('./sandbox/index.js')).createSandbox({ seeds, ...(webhookSender ? { webhookSender } : {}) }) : undefined;
  if (sandbox) logger.warn('SANDBOX MODE: any sandbox_ key is accepted and CORS is open; never expose this server');
  const app = await createApp({
    store,
    apiKeys: config.apiKeys,
    logger,
    corsOrigins: config.corsOrigins,
    ...(webhookSender && !sandbox ? { webhookSender } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(config.rateLimit ? { rateLimit: { ...config.rateLimit, ...(rateLimitStore ? { store: rateLimitStore } : {}) } } : {}),
  });

  // Default timeouts: 10 s for headers, 30 s for the whole request (Node: 60 s and 300 s).
  const server = createHttpServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ url: `http://${config.host}:${port}`, port }, 'listening');
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
    // close() stops accepting and resolves when in-flight requests are done; idle
    // keep-alive sockets would hold it open, so they are closed now.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // Live /_sandbox/events streams would otherwise hold close() open.
    await sandbox?.close();
    await closed;
    await webhookSender?.close();
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
): Promise<WebhookSender> {
  // createWebhookSender logs the WEBHOOK_ALLOW_PRIVATE warning itself (origin only: the path may hold a token).
  // Plain http:// passed the config only in sandbox mode, and only for loopback receivers.
  if (new URL(webhook.url).protocol === 'http:') {
    const { createLoopbackSender } = await import('./sandbox/index.js');
    return createLoopbackSender({ url: webhook.url, logger: logger.child({ component: 'webhook-sender' }) });
  }
  const ca = webhook.caFile ? await readFile(webhook.caFile) : undefined;
  return createWebhookSender({
    url: webhook.url,
    allowPrivate: webhook.allowPrivate,
    ...(ca ? { ca } : {}),
    logger: logger.child({ component: 'webhook-sender' }),
  });
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`session-resume-api cannot start: ${message}\n`);
  process.exit(1);
});
