/**
 * Package session-resume-api-server: the app, session stores, webhook delivery and the reference docs.
 * Bundles @session-resume-api/runtime at build; never imports client/ (docs/architecture.md).
 */
export { createApp } from './app.js';
export type { AppDeps } from './app.js';
export { OptionsError } from '@session-resume-api/runtime/options-error';
export type { OptionsErrorOptions } from '@session-resume-api/runtime/options-error';
export type { StoreUnavailableErrorOptions } from '@session-resume-api/runtime/store-unavailable-error';
export type { RateLimitOptions } from './http/rate-limit.js';
export { SessionsLostError, StoreUnavailableError } from './errors/store-errors.js';
export { createMemorySessionStore } from './sessions/memory-session-store.js';
export type { MemorySessionStoreOptions } from './sessions/memory-session-store.js';
export { createRedisSessionStore } from './sessions/redis-session-store.js';
export type { RedisSessionStoreOptions } from './sessions/redis-session-store.js';
export type { OpenTelemetryApi, SpanAttributes } from '@session-resume-api/runtime/tracing';
export type { TraceContext } from '@session-resume-api/runtime/trace-context';
export type { IdempotentAnswers, RecordedAnswer, ResumeTransition, Session, SessionSeed, SessionStore, StoreResumeOptions } from './sessions/session-store.js';
export { createRedisConnection } from './redis/create-redis-connection.js';
export type { RedisConnection, RedisConnectionOptions, RedisTarget } from './redis/create-redis-connection.js';
export { createMemoryDelivery } from './webhooks/memory-delivery.js';
export type { MemoryDeliveryOptions } from './webhooks/memory-delivery.js';
export type { MemoryDeliveryQueueSettings } from './webhooks/memory-delivery-queue.js';
export type { RedisQueueSettings } from './webhooks/bullmq-queue.js';
export { createRedisDelivery } from './webhooks/redis-delivery.js';
export type { RedisDelivery, RedisDeliveryBaseOptions, RedisDeliveryOptions, RedisDeliveryReader, RedisDeliveryWorker } from './webhooks/redis-delivery.js';
export type { WebhookDelivery } from './webhooks/webhook-delivery.js';
export type { WebhookMessage } from './core/webhook-message.js';
export type { DeliveryEngine, DeliveryEngineSettings, DeliveryTarget } from './webhooks/delivery-engine.js';
export type { DeadEvent } from './webhooks/delivery-queue.js';
export type { RecoveredEvent, RecoverOptions, RecoverResult } from './webhooks/recover-by-time.js';
export type { DedupeWindowAge } from './webhooks/dedupe-window-age.js';
export type { EndpointHealth, EndpointReason, EndpointState } from './webhooks/endpoint-circuit-rules.js';
export type { EndpointChange, EndpointHealthOptions, EndpointHealthSettings, EndpointStatus } from './webhooks/endpoint-circuit.js';
export type { HeldOverflow } from './webhooks/endpoint-backlog.js';
export type { EndpointHealthPolicy } from './webhooks/endpoint-health-policy.js';
export type { ResolvedAddress, WebhookLookup } from '@session-resume-api/runtime/delivery/resolve-webhook-host';
export type { ApiComponents, ApiOperations, ApiWebhooks, SessionEvent } from '@session-resume-api/runtime/types';
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
export type { Sandbox, SandboxOptions, SandboxEvent, SandboxWorld, SandboxWorldsOptions } from './sandbox/index.js';
export type { SandboxRecovery, SessionPage, SetOutcome } from './sandbox/sandbox-worlds.js';
export type { DeliveryProfile } from '@session-resume-api/runtime/delivery/delivery-rules';
export type { SandboxApiComponents } from '@session-resume-api/runtime/sandbox-types';
export { DEMO_SESSIONS } from './sessions/session-seeds.js';
