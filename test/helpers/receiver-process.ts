/**
 * A webhook receiver process for multi-process tests: `node --import tsx receiver-process.ts
 * '<json config>'`. Listens on 127.0.0.1:<port> with a Redis store and reports on stdout:
 * `READY <port>` once listening, `START <sessionId> <attempt>` when a handler attempt begins,
 * `DONE <sessionId> <timestamp>` when it finished. Stdout writes to a pipe are synchronous on
 * Linux, so a line written before a SIGKILL is not lost.
 */
import { createServer } from 'node:http';
import { createWebhookReceiver } from '../../client/webhooks/index.js';
import { createRedisEventStore } from '../../client/webhooks/redis/index.js';

/** Configuration passed as the single JSON argument. */
export interface ReceiverProcessConfig {
  port: number;
  redisUrl: string;
  prefix: string;
  dedupeWindowSeconds?: number;
  handlerMs?: number;
  concurrency?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  maxStalledCount?: number;
  recordTimeoutMs?: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as ReceiverProcessConfig;
const write = (line: string) => process.stdout.write(`${line}\n`);

const receiver = createWebhookReceiver({
  store: createRedisEventStore({
    url: config.redisUrl,
    prefix: config.prefix,
    concurrency: config.concurrency ?? 10,
    lockDurationMs: config.lockDurationMs,
    stalledIntervalMs: config.stalledIntervalMs,
    maxStalledCount: config.maxStalledCount,
    recordTimeoutMs: config.recordTimeoutMs,
  }),
  dedupeWindowSeconds: config.dedupeWindowSeconds,
  retryDelayMs: 100,
  onEvent: async (event, ctx) => {
    write(`START ${event.session?.id} ${ctx.attempt}`);
    if (config.handlerMs) await new Promise((r) => setTimeout(r, config.handlerMs));
    write(`DONE ${event.session?.id} ${event.timestamp}`);
  },
  onError: (error, ctx) => write(`ERROR ${ctx.event.session?.id} ${String(error)}`),
});

const server = createServer(receiver.handler);
server.keepAliveTimeout = 1000;
server.listen(config.port, '127.0.0.1', () => write(`READY ${config.port}`));

process.once('SIGTERM', () => {
  server.close();
  void receiver.close().then(() => process.exit(0));
});
