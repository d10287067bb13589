/**
 * Package session-resume-api-server: the app, session stores, webhook delivery and the reference docs.
 * Bundles @session-resume-api/runtime at build; never imports client/ (docs/architecture.md).
 */
export { createApp } from './app.js';
export type { AppDeps } from './app.js';
export { OptionsError } from '@session-resume-api/runtime/options-error';
export { SessionsLostError, StoreUnavailableError } from './errors/store-errors.js';
export { createMemorySessionStore } from './sessions/memory-session-store.js';
export type { MemorySessionStoreOptions } from './sessions/memory-session-store.js';
export { createRedisSessionStore } from './sessions/redis-session-store.js';
export type { RedisSessionStoreOptions } from './sessions/redis-session-store.js';
export type { OpenTelemetryApi } from '@session-resume-api/runtime/tracing';
export type { TraceContext } from '@session-resume-api/runtime/trace-context';
export type { ResumeTransition, Session, SessionSeed, SessionStore } from './sessions/session-store.js';
export { createRedisConnection } from './redis/create-redis-connection.js';
export type { RedisConnection, RedisConnectionOptions, RedisTarget } from './redis/create-redis-connection.js';
export { createMemoryDelivery } from './webhooks/memory-delivery.js';
export type { MemoryDeliveryOptions } from './webhooks/memory-delivery.js';
export { createRedisDelivery } from './webhooks/redis-delivery.js';
export type { RedisDelivery, RedisDeliveryBaseOptions, RedisDeliveryOptions, RedisDeliveryReader, RedisDeliveryWorker } from './webhooks/redis-delivery.js';
export type { WebhookDelivery } from './webhooks/webhook-delivery.js';
export type { WebhookMessage } from './core/webhook-message.js';
export type { DeliveryEngine, DeliveryTarget } from './webhooks/delivery-engine.js';
export type {
  AttemptResult,
  DeliveryAttempt,
  DeliveryInspector,
  DeliveryObserver,
  DeliveryRecord,
  DeliveryState,
  DeliveryStats,
} from './webhooks/delivery-types.js';
export { createSandbox } from './sandbox/index.js';
export type { Sandbox, SandboxOptions, SandboxEvent } from './sandbox/index.js';
export { DEMO_SESSIONS } from './sessions/session-seeds.js';
