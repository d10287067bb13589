/**
 * One delivery instance as its own process, for tests that kill it: a Redis delivery engine
 * (worker on, relay off) with the endpoint-health policy given, delivering to a receiver on
 * loopback. Argument: JSON { redisUrl, keyPrefix, url, ca, schedule, policy }. Prints "ready".
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createRedisClient } from '../../server/redis/redis-client.js';
import { waitUntilConnected } from '../../server/redis/create-redis-connection.js';
import { ENDPOINT_HEALTH_POLICY } from '../../server/webhooks/endpoint-health-policy.js';
import { createRedisDelivery } from '../../server/webhooks/redis-delivery.js';

const config = JSON.parse(process.argv[2] ?? '{}') as { redisUrl: string; keyPrefix: string; url: string; ca: string; schedule: number[]; policy: object };
const client = createRedisClient(config.redisUrl);
await waitUntilConnected(client);
createRedisDelivery({
  client,
  connection: new Redis(config.redisUrl, { maxRetriesPerRequest: null }),
  keyPrefix: config.keyPrefix,
  url: config.url,
  ca: config.ca,
  allowPrivate: true,
  schedule: config.schedule,
  relay: false,
  logger: pino({ level: 'warn' }, pino.destination(2)),
  endpointHealth: { policy: { ...ENDPOINT_HEALTH_POLICY, ...config.policy } },
});
process.stdout.write('ready\n');
