/**
 * Names this package exported before webhook delivery had one vocabulary, kept working until
 * the next major version. Each is the new name itself (the same function, the same type), so
 * code written against either name behaves the same. The vocabulary: docs/architecture.md.
 * `ServerMetrics.watchOutbox`, a method, is kept beside `watchDelivery` as the same function.
 */
import type { WebhookMessage } from '../core/webhook-message.js';
import { createMemoryDelivery, type MemoryDeliveryOptions } from './memory-delivery.js';
import { createRedisDelivery, type RedisDelivery, type RedisDeliveryOptions } from './redis-delivery.js';
import type { WebhookDelivery } from './webhook-delivery.js';

/** @deprecated Use `createMemoryDelivery` (the same function). Removed in the next major version. */
export const createWebhookSender: typeof createMemoryDelivery = createMemoryDelivery;
/** @deprecated Use `MemoryDeliveryOptions`. Removed in the next major version. */
export type CreateWebhookSenderOptions = MemoryDeliveryOptions;
/** @deprecated Use `createRedisDelivery` (the same function). Removed in the next major version. */
export const createRedisOutbox: typeof createRedisDelivery = createRedisDelivery;
/** @deprecated Use `RedisDelivery`. Removed in the next major version. */
export type RedisOutbox = RedisDelivery;
/** @deprecated Use `RedisDeliveryOptions`. Removed in the next major version. */
export type RedisOutboxOptions = RedisDeliveryOptions;
/** @deprecated Use `WebhookDelivery`. Removed in the next major version. */
export type WebhookSender = WebhookDelivery;
/** @deprecated Use `WebhookMessage`. Removed in the next major version. */
export type OutboxEvent = WebhookMessage;
