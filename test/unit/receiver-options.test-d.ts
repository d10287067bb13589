/**
 * Option combinations of the receiver kit's factories that cannot work do not type-check: the
 * Redis store connects to exactly one of `url`, `client` or `clusterNodes`, and
 * `order: 'per-session'` needs a store that keeps session order. Each factory still refuses
 * them at run time, for JavaScript callers.
 */
import type { Cluster, Redis } from 'ioredis';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createMemoryEventStore,
  createWebhookReceiver,
  type OrderedReceiverStore,
  type ReceiverStore,
  type WebhookReceiverOptions,
} from '../../client/webhooks/index.js';
import { createRedisEventStore, type RedisEventStoreOptions } from '../../client/webhooks/redis/index.js';
import { createDurableObjectStore } from '../../client/webhooks/cloudflare/index.js';

declare const client: Redis | Cluster;
declare const store: ReceiverStore;
const url = 'redis://127.0.0.1:6379';
const clusterNodes = ['10.0.0.5:7000'];
const onEvent = () => undefined;

describe('RedisEventStoreOptions', () => {
  it('takes exactly one of url, client or clusterNodes', () => {
    expectTypeOf({ url }).toExtend<RedisEventStoreOptions>();
    expectTypeOf({ client, prefix: 'p' }).toExtend<RedisEventStoreOptions>();
    expectTypeOf({ clusterNodes, concurrency: 4 }).toExtend<RedisEventStoreOptions>();
    expectTypeOf({ prefix: 'p' }).not.toExtend<RedisEventStoreOptions>();
    expectTypeOf({ url, client }).not.toExtend<RedisEventStoreOptions>();
    expectTypeOf({ url, clusterNodes }).not.toExtend<RedisEventStoreOptions>();
    expectTypeOf({ client, clusterNodes }).not.toExtend<RedisEventStoreOptions>();
    // @ts-expect-error a URL and seed nodes: which one would the store connect to?
    void createRedisEventStore({ url, clusterNodes });
    // @ts-expect-error no Redis at all
    void createRedisEventStore({ queueName: 'q' });
  });
});

describe("WebhookReceiverOptions' order", () => {
  it("'per-session' takes a store that keeps session order; 'any' takes any store", () => {
    expectTypeOf(createMemoryEventStore()).toEqualTypeOf<OrderedReceiverStore>();
    expectTypeOf(createRedisEventStore({ url })).toEqualTypeOf<OrderedReceiverStore>();
    expectTypeOf(createDurableObjectStore).returns.toEqualTypeOf<OrderedReceiverStore>();
    expectTypeOf({ store, onEvent }).toExtend<WebhookReceiverOptions>();
    expectTypeOf({ store, onEvent, order: 'any' as const }).toExtend<WebhookReceiverOptions>();
    expectTypeOf({ store: createMemoryEventStore(), onEvent, order: 'per-session' as const }).toExtend<WebhookReceiverOptions>();
    expectTypeOf({ store, onEvent, order: 'per-session' as const }).not.toExtend<WebhookReceiverOptions>();
    // @ts-expect-error a store without advanceSession cannot keep the order of a session
    void createWebhookReceiver({ store, onEvent, order: 'per-session' });
    void createWebhookReceiver({ store: createMemoryEventStore(), onEvent, order: 'per-session' });
  });
});
