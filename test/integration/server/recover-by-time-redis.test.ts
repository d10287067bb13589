/**
 * Recovery by time on Redis, two instances: a dry run changes nothing; a recovery re-sends
 * exactly the events whose last attempt failed in the window, once, even when both instances
 * recover at the same time and again afterwards.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import { waitUntilConnected } from '../../../server/redis/create-redis-connection.js';
import { createRedisClient } from '../../../server/redis/redis-client.js';
import { createRedisDelivery, type RedisDelivery } from '../../../server/webhooks/redis-delivery.js';
import { deletePrefix } from '../../helpers/redis-keys.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/tls.js';
import { waitFor } from '../../helpers/wait-for.js';

const keyPrefix = `recover:${randomUUID()}:`;
let client: Redis;
let connection: Redis;
let receiver: HttpsReceiver;
let status = 500;
let pair: RedisDelivery[] = [];

beforeAll(async () => {
  client = createRedisClient(inject('redisUrl'));
  await waitUntilConnected(client);
  connection = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
  receiver = await startHttpsReceiver((_request, res) => {
    res.writeHead(status).end();
  });
  const make = () =>
    createRedisDelivery({
      client,
      connection,
      keyPrefix,
      url: `${receiver.origin}/hooks`,
      ca: receiver.certificate.cert,
      allowPrivate: true,
      schedule: [0],
      relay: false,
      endpointHealth: false,
      logger: pino({ enabled: false }),
    });
  pair = [make(), make()];
});

afterAll(async () => {
  await Promise.all(pair.map((engine) => engine.close({ timeoutMs: 2000 })));
  await receiver.close();
  await deletePrefix(inject('redisUrl'), keyPrefix);
  await client.quit();
  await connection.quit();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function deadBatch(tag: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => `msg_${randomUUID()}`);
  ids.forEach((id, i) => {
    const payload: SessionEvent = { event: 'session.resumed', session: { id: `${tag}_${i}` }, timestamp: new Date().toISOString() };
    pair[i % 2]!.enqueue({ id, payload });
  });
  await waitFor(async () => (await pair[0]!.listDead()).filter((d) => ids.includes(d.id)).length === count, { what: `${tag} dead` });
  return ids;
}

it('recover --dry-run changes nothing; recover re-sends exactly the window once, across two instances, and again sends nothing', async () => {
  await deadBatch('before', 3);
  await sleep(50);
  const since = new Date();
  const inWindow = await deadBatch('inside', 6);
  await sleep(50);
  const until = new Date();
  await sleep(50);
  await deadBatch('after', 3);
  const sentBefore = receiver.requests.length;

  const dry = await pair[0]!.recover({ since, until, status: 'dead', dryRun: true });
  expect(dry).toMatchObject({ status: 'dead', dryRun: true, matched: 6, requeued: 0 });
  expect(new Set(dry.events.map((e) => e.id))).toEqual(new Set(inWindow));
  await sleep(300);
  expect(receiver.requests.length).toBe(sentBefore);
  expect((await pair[1]!.stats()).dead).toBe(12);

  status = 200;
  const [a, b] = await Promise.all(pair.map((engine) => engine.recover({ since, until })));
  expect(a!.matched).toBe(6);
  expect(a!.requeued + b!.requeued).toBe(6);
  await waitFor(async () => (await pair[0]!.stats()).delivered === 6, { what: 'the recovered events' });
  const again = await pair[1]!.recover({ since, until });
  expect(again).toMatchObject({ matched: 0, requeued: 0 });
  await sleep(300);
  const resent = receiver.requests.slice(sentBefore).map((r) => String(r.headers['webhook-id']));
  expect(resent.sort()).toEqual([...inWindow].sort());
  expect((await pair[0]!.stats()).dead).toBe(6);
}, 60_000);
