/**
 * Option combinations of the server's factories that cannot work do not type-check: a Redis
 * delivery that delivers (the default, `worker` on) needs the receiver's URL, and a Redis
 * connection goes to one URL or to cluster seed nodes, not both.
 */
import type { Cluster, Redis } from 'ioredis';
import { describe, expectTypeOf, it } from 'vitest';
import { createRedisConnection, type RedisDeliveryOptions, type RedisTarget } from '../../../server/index.js';

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

describe('RedisTarget', () => {
  it('is one URL or cluster seed nodes, not both', () => {
    expectTypeOf({ url: 'redis://127.0.0.1:6379' }).toExtend<RedisTarget>();
    expectTypeOf({ clusterNodes: ['10.0.0.5:7000'] }).toExtend<RedisTarget>();
    expectTypeOf({ url: 'redis://127.0.0.1:6379', clusterNodes: ['10.0.0.5:7000'] }).not.toExtend<RedisTarget>();
    // @ts-expect-error a URL and seed nodes: which one would the connection use?
    void createRedisConnection({ url: 'redis://127.0.0.1:6379', clusterNodes: ['10.0.0.5:7000'] });
  });
});
