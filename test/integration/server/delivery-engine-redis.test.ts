/** The shared delivery suite on the BullMQ queue (Redis store), under a random key prefix of the shared Redis. */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, inject } from 'vitest';
import { waitUntilConnected } from '../../../server/redis/create-redis-connection.js';
import { createRedisClient } from '../../../server/redis/redis-client.js';
import { createRedisDelivery } from '../../../server/webhooks/redis-delivery.js';
import { deliveryEngineSuite } from '../../helpers/delivery-engine-suite.js';
import { deletePrefix } from '../../helpers/redis-keys.js';

let client: Redis;
let connection: Redis;
const prefixes: string[] = [];

beforeAll(async () => {
  client = createRedisClient(inject('redisUrl'));
  await waitUntilConnected(client);
  connection = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
});

afterAll(async () => {
  for (const prefix of prefixes) await deletePrefix(inject('redisUrl'), prefix);
  await client.quit();
  await connection.quit();
});

deliveryEngineSuite('BullMQ queue', async ({ url, ca, schedule, observer }) => {
  const keyPrefix = `delivery-suite:${randomUUID()}:`;
  prefixes.push(keyPrefix);
  return createRedisDelivery({
    client,
    connection,
    keyPrefix,
    url,
    ca,
    schedule,
    observer,
    allowPrivate: true,
    relay: false,
    logger: pino({ enabled: false }),
  });
});
