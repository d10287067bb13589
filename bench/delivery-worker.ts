/**
 * One Redis-mode instance of the delivery group (bench/delivery-cases.ts), in its own process:
 * Redis delivery (worker on, no relay) on the queue under `keyPrefix`, delivering to `url`
 * (CA in DELIVERY_BENCH_CERT), its first attempt after `firstDelayMs`. Prints `ready` once
 * its worker runs; each stdin line `<count> <prefix>` enqueues that many events through the
 * engine as resumes would and prints `enqueued`; a line `cpu` prints the process's CPU time so
 * far (µs, user + system); SIGTERM closes it.
 *
 *   tsx bench/delivery-worker.ts <redisUrl> <keyPrefix> <url> <firstDelayMs>
 */
import { createInterface } from 'node:readline';
import { createQueueConnection, createRedisConnection, waitUntilConnected } from '../server/redis/create-redis-connection.js';
import { pino } from 'pino';
import { createRedisDelivery } from '../server/webhooks/redis-delivery.js';
import { enqueueEvents } from './delivery-enqueue.js';

const [redisUrl = '', keyPrefix = '', url = '', firstDelayMs = '0'] = process.argv.slice(2);
const client = createRedisConnection({ url: redisUrl });
await waitUntilConnected(client);
const connection = createQueueConnection({ url: redisUrl });
const delivery = createRedisDelivery({
  client,
  connection,
  keyPrefix,
  url,
  ca: process.env.DELIVERY_BENCH_CERT,
  allowPrivate: true,
  relay: false,
  schedule: [Number(firstDelayMs), 5000, 60_000],
  logger: pino({ enabled: false }),
  // BENCH_DELIVERY_CONCURRENCY: another WEBHOOK_CONCURRENCY than the default, to compare.
  ...(process.env.BENCH_DELIVERY_CONCURRENCY ? { concurrency: Number(process.env.BENCH_DELIVERY_CONCURRENCY) } : {}),
});
await delivery.stats();
process.on('SIGTERM', () => {
  void delivery.close({ timeoutMs: 2000 }).finally(async () => {
    await Promise.allSettled([client.quit(), connection.quit()]);
    process.exit(0);
  });
});
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${user + system}\n`);
    continue;
  }
  const [count = '0', prefix = 'bench'] = line.split(' ');
  await enqueueEvents(delivery, Number(count), prefix);
  process.stdout.write('enqueued\n');
}
