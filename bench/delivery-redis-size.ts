/**
 * What the delivery engine keeps in Redis per event, measured with MEMORY USAGE over every key
 * under a fresh key prefix: N unkeyed resumes, then (a) pending (queued, no worker), (b) all
 * delivered to a loopback receiver. Sessions are counted apart: they exist before and after.
 *
 *   npx tsx bench/delivery-redis-size.ts [--events 2000] [--redis-url redis://127.0.0.1:6379]
 *
 * Uses only its own key prefix, deleted at the end.
 */
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createQueueConnection, createRedisConnection, waitUntilConnected, type RedisConnection } from '../server/redis/create-redis-connection.js';
import { pino } from 'pino';
import { createRedisSessionStore } from '../server/sessions/redis-session-store.js';
import { createRedisDelivery } from '../server/webhooks/redis-delivery.js';
import type { WebhookMessage } from '../server/core/webhook-message.js';

const { values } = parseArgs({ options: { events: { type: 'string', default: '2000' }, 'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379' } } });
const N = Number(values.events);
const prefix = `delivery-size:${randomUUID()}:`;

/** Bytes per key group under the prefix. */
async function measure(client: RedisConnection): Promise<Record<string, { keys: number; bytes: number }>> {
  const groups: Record<string, { keys: number; bytes: number }> = {};
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    const sizes = await Promise.all(keys.map((key) => client.memory('USAGE', key, 'SAMPLES', '0')));
    keys.forEach((key, i) => {
      const group = groupOf(key.slice(prefix.length));
      groups[group] ??= { keys: 0, bytes: 0 };
      groups[group].keys++;
      groups[group].bytes += Number(sizes[i] ?? 0);
    });
  } while (cursor !== '0');
  return groups;
}

function groupOf(key: string): string {
  if (key.startsWith('session:')) return 'sessions';
  if (key.startsWith('outbox:')) return 'event keys';
  if (key === '{outbox}:intents') return 'intents';
  if (/^\{outbox\}:webhooks:msg_/.test(key)) return 'job hashes';
  if (key === '{outbox}:webhooks:events') return 'events stream (capped)';
  return 'queue lists and sets';
}

const perEvent = (groups: Record<string, { bytes: number }>, skip: string[] = []) =>
  Object.entries(groups)
    .filter(([name]) => name !== 'sessions' && !skip.includes(name))
    .reduce((sum, [, g]) => sum + g.bytes, 0) / N;

async function main(): Promise<void> {
  const client = createRedisConnection({ url: values['redis-url'] });
  await waitUntilConnected(client);
  const connection = createQueueConnection({ url: values['redis-url'] });
  let delivered = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      delivered++;
      res.writeHead(200).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const logger = pino({ enabled: false });
  try {
    const store = createRedisSessionStore({ client, keyPrefix: prefix });
    const ids = Array.from({ length: N }, (_, i) => `size_${i}`);
    await store.seed(ids.map((id) => ({ id, status: 'paused' })));
    const resumed: WebhookMessage[] = [];
    for (const id of ids) {
      const t = await store.resume(id);
      if (t.kind === 'resumed') resumed.push(t.event);
    }
    const written = await measure(client);
    const queueOnly = createRedisDelivery({ client, connection, keyPrefix: prefix, worker: false, relay: false, logger });
    for (const event of resumed) queueOnly.enqueue(event);
    await queueOnly.close({ timeoutMs: 60_000 });
    const pending = await measure(client);
    const delivery = createRedisDelivery({ client, connection, keyPrefix: prefix, url, insecureLocalhost: true, relay: false, concurrency: 50, logger });
    while (delivered < N) await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 500));
    await delivery.close();
    const done = await measure(client);
    const history = (done['job hashes']?.bytes ?? 0) / Math.max(1, done['job hashes']?.keys ?? 1);
    const report = {
      events: N,
      'written by the resume, before the enqueue (event key + intent), B/event': Math.round(perEvent(written)),
      'pending (queued, not yet attempted), B/event': Math.round(perEvent(pending, ['events stream (capped)'])),
      'delivered, beyond the bounded history and the capped stream, B/event': Math.round(
        perEvent(done, ['job hashes', 'events stream (capped)', 'queue lists and sets']),
      ),
      'delivered history kept (newest 1000, at most 1 h), B/job': Math.round(history),
      'events stream, capped at 1000 entries, B': done['events stream (capped)']?.bytes ?? 0,
      groups: { written, pending, done },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    for (let i = 0; i < keys.length; i += 500) await client.del(...keys.slice(i, i + 500));
    receiver.close();
    await connection.quit();
    await client.quit();
  }
}

await main();
