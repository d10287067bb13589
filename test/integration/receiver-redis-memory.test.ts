/**
 * Redis memory per acknowledged event after processing, measured on a private redis-server:
 * 10,000 distinct events through the receiver, all processed, then INFO memory and MEMORY
 * USAGE. What stays is the dedupe record only (completed jobs removed, inbox empty); the
 * figure is printed, and must be at most 300 bytes per event (two identities: triple and
 * webhook-id).
 */
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookReceiver } from '../../client/webhooks/index.js';
import { createRedisEventStore } from '../../client/webhooks/redis/index.js';
import { storeKeys } from '../../client/webhooks/redis/store-scripts.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait-for.js';

const EVENTS = 10_000;
let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server?.stop());

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

async function keysUnder(redis: Redis, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
}

describe('Redis memory per acknowledged event', () => {
  it.each([
    ['triple only', false],
    ['triple + webhook-id', true],
  ])('%s: at most 300 bytes after processing (10,000 events)', { timeout: 240_000 }, async (label, withWebhookId) => {
    const prefix = `mem-${withWebhookId ? 'w' : 't'}`;
    const redis = new Redis(server.url);
    let processed = 0;
    const receiver = createWebhookReceiver({
      store: createRedisEventStore({ url: server.url, prefix, concurrency: 50 }),
      onEvent: () => void processed++,
    });
    // One event first, so the queue's fixed keys (meta, id counter, event stream) exist before the baseline.
    await receiver.receive(JSON.stringify({ event: 'session.resumed', session: { id: 'warm-up' }, timestamp: 'w' }));
    await waitFor(() => processed === 1);
    const before = await usedMemory(redis);
    const run = randomBytes(4).toString('hex');
    for (let i = 0; i < EVENTS; i += 100) {
      const batch = Array.from({ length: 100 }, (_, j) => {
        const event = { event: 'session.resumed', session: { id: `sess_${run}_${i + j}` }, timestamp: new Date().toISOString() };
        const headers = withWebhookId ? { 'webhook-id': `msg_${randomBytes(12).toString('base64url')}` } : undefined;
        return receiver.receive(JSON.stringify(event), headers);
      });
      for (const answer of await Promise.all(batch)) expect(answer.status).toBe(200);
    }
    await waitFor(() => processed === EVENTS + 1, { timeoutMs: 180_000, what: `${EVENTS} events processed` });
    const keys = storeKeys(prefix, 'webhook-events');
    const queue = new Queue('webhook-events', { connection: redis, prefix: keys.bullPrefix });
    await waitFor(
      async () =>
        (await redis.hlen(keys.inbox)) === 0 && Object.values(await queue.getJobCounts('waiting', 'active', 'completed', 'delayed')).every((n) => n === 0),
      {
        timeoutMs: 30_000,
        what: 'inbox empty and completed jobs removed',
      },
    );
    const after = await usedMemory(redis);
    const buckets = await keysUnder(redis, `${keys.dedupe}:*`);
    let bucketBytes = 0;
    for (const key of buckets) bucketBytes += Number(await redis.memory('USAGE', key, 'SAMPLES', '0'));
    const perEvent = (after - before) / EVENTS;
    console.log(
      `receiver Redis memory, ${label}: ${EVENTS} events → used_memory +${after - before} B = ${perEvent.toFixed(0)} B/event; ` +
        `dedupe hashes (MEMORY USAGE) ${bucketBytes} B = ${(bucketBytes / EVENTS).toFixed(0)} B/event in ${buckets.length} bucket(s)`,
    );
    expect(perEvent).toBeLessThanOrEqual(300);
    expect(perEvent).toBeGreaterThan(0);
    await receiver.close();
    await queue.close();
    redis.disconnect();
  });
});
