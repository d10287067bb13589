/**
 * One Redis-mode instance of the delivery group (bench/delivery-cases.ts), in its own process:
 * the Redis outbox (worker on, no relay) on the queue under `keyPrefix`, delivering to `url`
 * (CA in DELIVERY_BENCH_CERT), its first attempt after `firstDelayMs`. With `warmEvents`, the
 * process first drains a backlog of that many events of its own on another queue
 * (`<keyPrefix>warm:`), as a running instance has delivered before a backlog comes due, prints
 * `warm` and waits for a stdin line before it opens the queue. Prints `ready` once its worker
 * runs; each stdin line `<count> <prefix>` enqueues that many events through the outbox as
 * resumes would and prints `enqueued`; a line `cpu` prints the process's CPU time so far (µs,
 * user + system); SIGTERM closes it.
 *
 *   tsx bench/delivery-worker.ts <redisUrl> <keyPrefix> <url> <firstDelayMs> [warmEvents]
 */
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createRedisOutbox, type RedisOutbox } from '../server/webhooks/redis-outbox.js';
import { enqueueEvents } from './delivery-enqueue.js';

const [redisUrl = '', keyPrefix = '', url = '', firstDelayMs = '0', warmEvents = '0'] = process.argv.slice(2);
const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function open(prefix: string, worker = true): RedisOutbox {
  return createRedisOutbox({
    client,
    connection,
    keyPrefix: prefix,
    url,
    ca: process.env.DELIVERY_BENCH_CERT,
    allowPrivate: true,
    worker,
    relay: false,
    schedule: [Number(firstDelayMs), 5000, 60_000],
    logger: pino({ enabled: false }),
    // BENCH_DELIVERY_CONCURRENCY: another WEBHOOK_CONCURRENCY than the default, to compare.
    ...(process.env.BENCH_DELIVERY_CONCURRENCY ? { concurrency: Number(process.env.BENCH_DELIVERY_CONCURRENCY) } : {}),
  });
}

/**
 * Drains a backlog of `count` events of its own on another queue, then closes it: the process
 * has run the drain's code path at full concurrency before, as a running instance has.
 */
async function warmUp(count: number): Promise<void> {
  const prefix = `${keyPrefix}warm:`;
  const producer = open(prefix, false);
  await enqueueEvents(producer, count, 'warm');
  while ((await producer.stats()).pending < count) await sleep(20);
  const warm = open(prefix);
  for (let stats = await warm.stats(); stats.pending + stats.delivering > 0; stats = await warm.stats()) await sleep(20);
  await Promise.all([warm.close({ timeoutMs: 2000 }), producer.close({ timeoutMs: 2000 })]);
}

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
if (Number(warmEvents) > 0) {
  await warmUp(Number(warmEvents));
  process.stdout.write('warm\n');
  await lines.next();
}
const outbox = open(keyPrefix);
await outbox.stats();
process.on('SIGTERM', () => {
  void outbox.close({ timeoutMs: 2000 }).finally(async () => {
    await Promise.allSettled([client.quit(), connection.quit()]);
    process.exit(0);
  });
});
process.stdout.write('ready\n');
for (let next = await lines.next(); !next.done; next = await lines.next()) {
  if (next.value === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${user + system}\n`);
    continue;
  }
  const [count = '0', prefix = 'bench'] = String(next.value).split(' ');
  await enqueueEvents(outbox, Number(count), prefix);
  process.stdout.write('enqueued\n');
}
