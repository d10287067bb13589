/**
 * The option combinations the types rule out (test/unit/receiver-options.test-d.ts,
 * test/unit/server/server-options.test-d.ts) are still refused at run time, with `OptionsError`
 * naming the rule, for a JavaScript caller: nothing is opened before the refusal.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryEventStore, createWebhookReceiver, OptionsError, type ReceiverStore } from '../../client/webhooks/index.js';
import { createRedisEventStore } from '../../client/webhooks/redis/index.js';
import { createRedisConnection, createRedisDelivery } from '../../server/index.js';

const onEvent = () => undefined;
/** What a JavaScript caller may pass: anything. */
const untyped = (value: object) => value as never;

describe('option combinations refused at run time', () => {
  it('the Redis event store connects to exactly one of url, client or clusterNodes', () => {
    for (const options of [{ url: 'redis://127.0.0.1:6379', clusterNodes: ['10.0.0.5:7000'] }, { prefix: 'p' }]) {
      expect(() => createRedisEventStore(untyped(options))).toThrow(OptionsError);
      expect(() => createRedisEventStore(untyped(options))).toThrow('give exactly one of url');
    }
  });

  it("order 'per-session' needs a store that keeps session order", async () => {
    const { advanceSession, ...unordered } = createMemoryEventStore();
    void advanceSession;
    const store: ReceiverStore = unordered;
    expect(() => createWebhookReceiver(untyped({ store, onEvent, order: 'per-session' }))).toThrow(
      "order 'per-session' needs a store that keeps session order",
    );
    await createWebhookReceiver({ store, onEvent, order: 'any' }).close();
  });

  it('a Redis connection goes to one URL or to cluster seed nodes, not both', () => {
    const both = untyped({ url: 'redis://127.0.0.1:6379', clusterNodes: ['10.0.0.5:7000'] });
    expect(() => createRedisConnection(both)).toThrow(OptionsError);
    expect(() => createRedisConnection(both)).toThrow('createRedisConnection: give url (one Redis) or clusterNodes (a Redis Cluster), not both.');
  });

  it('a Redis delivery worker needs the webhook URL', () => {
    const client = untyped({});
    expect(() => createRedisDelivery(untyped({ client, connection: client }))).toThrow('The delivery worker needs the webhook URL.');
  });
});
