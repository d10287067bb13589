/**
 * Bytes the receiver kit keeps per handled event for the rest of its dedupe window, on each store:
 * N distinct events through `receiver.receive`, all handled, then
 * - memory: growth of the V8 heap after a full GC (needs `--expose-gc`),
 * - Redis: growth of INFO `used_memory`, and MEMORY USAGE of the dedupe buckets, on a private redis-server,
 * - Durable Object: the bytes of its storage rows (key + value, as workerd's SQLite holds them) in
 *   miniflare, read from the persisted file with the `sqlite3` command.
 * Each store runs once without and once with a `webhook-id` on every delivery. Prints a table.
 *
 *   node --expose-gc --import tsx bench/receiver-record-size.ts [--memory 100000] [--redis 20000] [--do 3000] [--stores memory,redis,do]
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { createMemoryEventStore, createWebhookReceiver, type ReceiverStore } from '../client/webhooks/index.js';
import { createRedisEventStore } from '../client/webhooks/redis/index.js';
import { createDurableObjectStore, type DurableObjectNamespaceLike } from '../client/webhooks/cloudflare/index.js';
import { storeKeys } from '../client/webhooks/redis/store-scripts.js';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { waitFor } from '../test/helpers/wait-for.js';

const { values } = parseArgs({
  options: {
    memory: { type: 'string', default: '100000' },
    redis: { type: 'string', default: '20000' },
    do: { type: 'string', default: '3000' },
    stores: { type: 'string', default: 'memory,redis,do' },
  },
});
const stores = new Set(values.stores.split(','));
/** A week: no record leaves its window during a run. */
const WINDOW_SECONDS = 7 * 24 * 3600;
const run = Date.now().toString(36);
const bodyOf = (i: number) =>
  JSON.stringify({ event: 'session.resumed', session: { id: `sess_${run}_${i}` }, timestamp: new Date(1_764_000_000_000 + i).toISOString() });
const headersOf = (withId: boolean, i: number) => (withId ? { 'webhook-id': `msg_${run}_${i.toString().padStart(8, '0')}_${'x'.repeat(16)}` } : undefined);

/** Sends `n` distinct events, `parallel` at a time, and waits until every one was handled. */
async function fill(store: ReceiverStore, n: number, withId: boolean, parallel: number): Promise<() => Promise<void>> {
  let handled = 0;
  const receiver = createWebhookReceiver({ store, dedupeWindowSeconds: WINDOW_SECONDS, onEvent: () => void handled++, logger: false });
  for (let i = 0; i < n; i += parallel) {
    const answers = await Promise.all(Array.from({ length: Math.min(parallel, n - i) }, (_, j) => receiver.receive(bodyOf(i + j), headersOf(withId, i + j))));
    const refused = answers.find((a) => a.status !== 200);
    if (refused) throw new Error(`a delivery was answered ${refused.status}: ${JSON.stringify(refused.body)}`);
  }
  await waitFor(() => handled === n, { timeoutMs: 600_000, what: `${n} events handled` });
  return () => receiver.close();
}

function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc --import tsx bench/receiver-record-size.ts');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function memoryBytes(n: number, withId: boolean): Promise<string> {
  let handled = 0;
  const receiver = createWebhookReceiver({
    store: createMemoryEventStore({ maxRecords: n + 1 }),
    dedupeWindowSeconds: WINDOW_SECONDS,
    onEvent: () => void handled++,
    logger: false,
  });
  // One event first, so the store's maps and the receiver's code paths exist before the baseline.
  await receiver.receive(bodyOf(-1), headersOf(withId, -1));
  await waitFor(() => handled === 1);
  const before = heapAfterGc();
  for (let i = 0; i < n; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, n - i) }, (_, j) => receiver.receive(bodyOf(i + j), headersOf(withId, i + j))));
  }
  await waitFor(() => handled === n + 1, { timeoutMs: 600_000, what: `${n} events handled` });
  const after = heapAfterGc();
  await receiver.close();
  return `${((after - before) / n).toFixed(0)} B (heap after GC, ${n.toLocaleString('en')} records)`;
}

async function redisBytes(url: string, n: number, withId: boolean): Promise<string> {
  const redis = new Redis(url);
  const prefix = `size-${withId ? 'w' : 't'}`;
  const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
  const store = createRedisEventStore({ url, prefix, concurrency: 50 });
  // One event first, so the queue's fixed keys exist before the baseline.
  let handled = 0;
  const receiver = createWebhookReceiver({ store, dedupeWindowSeconds: WINDOW_SECONDS, onEvent: () => void handled++, logger: false });
  await receiver.receive(bodyOf(-1), headersOf(withId, -1));
  await waitFor(() => handled === 1);
  const before = await used();
  for (let i = 0; i < n; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, n - i) }, (_, j) => receiver.receive(bodyOf(i + j), headersOf(withId, i + j))));
  }
  await waitFor(() => handled === n + 1, { timeoutMs: 600_000, what: `${n} events handled` });
  const keys = storeKeys(prefix, 'webhook-events');
  await waitFor(async () => (await redis.hlen(keys.inbox)) === 0, { what: 'inbox empty' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = await used();
  let bucketBytes = 0;
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${keys.dedupe}:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of found) bucketBytes += Number(await redis.memory('USAGE', key, 'SAMPLES', '0'));
  } while (cursor !== '0');
  await receiver.close();
  redis.disconnect();
  return `${((after - before) / n).toFixed(0)} B (used_memory); dedupe hashes ${(bucketBytes / (n + 1)).toFixed(0)} B (MEMORY USAGE)`;
}

/** The part of test/slow/runtimes/skewed-durable-object.ts this bench uses. */
type StartSkewedObject = (options: {
  persist?: boolean;
}) => Promise<{ namespace: DurableObjectNamespaceLike; persistDir: string | undefined; dispose(): Promise<void> }>;
// workerd comes with the slow tier's runtimes (test/slow/runtimes: `npm ci` there, or one
// TEST_FULL=1 run), not with the repository's npm ci: the module is loaded only for this figure.
const SKEWED_OBJECT_MODULE = '../test/slow/runtimes/skewed-durable-object.js';

async function durableObjectBytes(n: number, withId: boolean): Promise<string> {
  const { startSkewedObject } = (await import(SKEWED_OBJECT_MODULE)) as { startSkewedObject: StartSkewedObject };
  const object = await startSkewedObject({ persist: true });
  try {
    const close = await fill(createDurableObjectStore({ namespace: object.namespace, callTimeoutMs: 30_000 }), n, withId, 5);
    await close();
    const dir = object.persistDir!;
    const file = findSqlite(dir);
    const rows = execFileSync('sqlite3', [file, 'SELECT substr(key, 1, 1), count(*), sum(length(CAST(key AS BLOB)) + length(value)) FROM _cf_KV GROUP BY 1'], {
      encoding: 'utf8',
    });
    const groups = rows
      .trim()
      .split('\n')
      .map((line) => line.split('|'));
    const total = groups.reduce((sum, [, , bytes]) => sum + Number(bytes), 0);
    const detail = groups.map(([prefix, count, bytes]) => `${prefix}: ${count} rows ${bytes} B`).join(', ');
    return `${(total / n).toFixed(0)} B (storage key + value; ${detail})`;
  } finally {
    await object.dispose();
  }
}

function findSqlite(dir: string): string {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.sqlite')) return join(entry.parentPath, entry.name);
  }
  throw new Error(`no .sqlite file under ${dir}`);
}

const lines: string[] = [];
const print = (line: string) => {
  lines.push(line);
  console.error(line);
};
for (const withId of stores.has('memory') ? [false, true] : []) {
  const label = withId ? 'event + webhook-id' : 'event identity only';
  print(`memory, ${label}: ${await memoryBytes(Number(values.memory), withId)}`);
}
const server = stores.has('redis') ? await startRedisServer() : undefined;
try {
  for (const withId of server ? [false, true] : [])
    print(`Redis, ${withId ? 'event + webhook-id' : 'event identity only'}: ${await redisBytes(server!.url, Number(values.redis), withId)}`);
} finally {
  await server?.stop();
}
for (const withId of stores.has('do') ? [false, true] : [])
  print(`Durable Object, ${withId ? 'event + webhook-id' : 'event identity only'}: ${await durableObjectBytes(Number(values.do), withId)}`);
console.log(`Bytes per handled event kept for the dedupe window:\n${lines.map((l) => `  ${l}`).join('\n')}`);
