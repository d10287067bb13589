/**
 * Promoting a waiting event (`webhooks recover --status failed`) on BullMQ: a promotion Redis
 * refuses is the caller's error (recover lists it with the reason), never "another instance put
 * it back first". A private Redis is made to refuse writes (min-replicas-to-write 1, and it has
 * none) while it still answers reads, so the job is plainly still waiting.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBullmqQueue, type BullmqDeliveryQueue } from '../../../server/webhooks/bullmq-queue.js';
import { redisKeys } from '../../../server/redis/redis-keys.js';
import { recoverByTime } from '../../../server/webhooks/recover-by-time.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

let server: RedisServer;
let connection: Redis;
let queue: BullmqDeliveryQueue;

beforeAll(async () => {
  server = await startRedisServer();
  connection = new Redis(server.url, { maxRetriesPerRequest: null });
  queue = createBullmqQueue({
    connection,
    prefix: 'promote-failure',
    heldKeys: redisKeys('promote-failure:'),
    target: '',
    maxAttempts: 3,
    logger: pino({ enabled: false }),
  });
});

afterAll(async () => {
  await connection.config('SET', 'min-replicas-to-write', '0');
  await queue.close(2000);
  connection.disconnect();
  await server.stop();
});

it('a promotion Redis refuses is thrown, and recover reports it with the reason', async () => {
  const payload = { event: 'session.resumed' as const, session: { id: 'sess_1' }, timestamp: new Date().toISOString() };
  await queue.add({ id: 'msg_waiting', payload }, 3_600_000);
  await connection.config('SET', 'min-replicas-to-write', '1');
  await expect(queue.promote('msg_waiting')).rejects.toThrow(/NOREPLICAS/);
  const recovered = await recoverByTime(
    { ...queue, listRetrying: async () => [{ id: 'msg_waiting', payload, failedAt: new Date().toISOString() }] },
    { since: new Date(Date.now() - 60_000), until: new Date(Date.now() + 60_000), status: 'failed' },
    0,
  );
  expect(recovered).toMatchObject({ matched: 1, requeued: 0, failed: 1 });
  expect(recovered.events[0]?.error).toMatch(/NOREPLICAS/);
}, 30_000);
