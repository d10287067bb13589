/**
 * Option combinations of the server's factories that cannot work do not type-check: a Redis
 * delivery that delivers (the default, `worker` on) needs the receiver's URL.
 */
import type { Cluster, Redis } from 'ioredis';
import { describe, expectTypeOf, it } from 'vitest';
import type { RedisDeliveryOptions } from '../../../server/index.js';

declare const client: Redis | Cluster;
declare const connection: Redis | Cluster;
declare const worker: boolean;

describe('RedisDeliveryOptions', () => {
  it('a worker needs url; without one the instance only reads and replays (worker: false)', () => {
    expectTypeOf({ client, connection, url: 'https://hooks.example.org/in' }).toExtend<RedisDeliveryOptions>();
    expectTypeOf({ client, connection, url: 'https://hooks.example.org/in', worker }).toExtend<RedisDeliveryOptions>();
    expectTypeOf({ client, connection, worker: false as const }).toExtend<RedisDeliveryOptions>();
    expectTypeOf({ client, connection }).not.toExtend<RedisDeliveryOptions>();
    expectTypeOf({ client, connection, worker: true as const }).not.toExtend<RedisDeliveryOptions>();
  });
});
