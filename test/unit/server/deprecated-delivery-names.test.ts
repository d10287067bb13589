/**
 * The names webhook delivery had before its one vocabulary still work: each deprecated export
 * is the new function or type itself, and the deprecated option names are still read.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import {
  createMemoryDelivery,
  createRedisDelivery,
  createRedisOutbox,
  createSandbox,
  createWebhookSender,
  type CreateWebhookSenderOptions,
  type MemoryDeliveryOptions,
  type OutboxEvent,
  type RedisDelivery,
  type RedisDeliveryOptions,
  type RedisOutbox,
  type RedisOutboxOptions,
  type WebhookDelivery,
  type WebhookMessage,
  type WebhookSender,
} from '../../../server/index.js';
import { createServerMetrics } from '../../../server/metrics/index.js';

const recorder = () => {
  const ids: string[] = [];
  const delivery: WebhookDelivery = { enqueue: (message) => void ids.push(message.id), close: async () => {} };
  return { ids, delivery };
};
const message = (id: string): WebhookMessage => ({ id, payload: { event: 'session.resumed', session: { id: 'sess_1' }, timestamp: '2026-11-25T10:00:00.000Z' } });

describe('deprecated webhook delivery names', () => {
  it('are the same functions as the new names', () => {
    expect(createWebhookSender).toBe(createMemoryDelivery);
    expect(createRedisOutbox).toBe(createRedisDelivery);
    const metrics = createServerMetrics({ defaultMetrics: false });
    expect(metrics.watchOutbox).toBe(metrics.watchDelivery);
  });

  it('are the same types as the new names', () => {
    expectTypeOf<CreateWebhookSenderOptions>().toEqualTypeOf<MemoryDeliveryOptions>();
    expectTypeOf<RedisOutbox>().toEqualTypeOf<RedisDelivery>();
    expectTypeOf<RedisOutboxOptions>().toEqualTypeOf<RedisDeliveryOptions>();
    expectTypeOf<WebhookSender>().toEqualTypeOf<WebhookDelivery>();
    expectTypeOf<OutboxEvent>().toEqualTypeOf<WebhookMessage>();
  });

  it("the sandbox's webhookSender option is still read; both names at once are an OptionsError naming both", () => {
    const { ids, delivery } = recorder();
    const sandbox = createSandbox({ seeds: [], webhookSender: delivery });
    sandbox.emit('world-1', message('msg_old_name'));
    expect(ids).toEqual(['msg_old_name']);
    const both = () => createSandbox({ seeds: [], webhookDelivery: delivery, webhookSender: recorder().delivery });
    expect(both).toThrow(OptionsError);
    expect(both).toThrow(/webhookDelivery and .*webhookSender are both given/);
  });
});
