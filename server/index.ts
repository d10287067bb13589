/**
 * Package session-resume-api-server: the service side. Build the app (`createApp`), pick a session
 * store, attach webhook delivery (`createMemoryDelivery` or `createRedisDelivery`), serve the
 * reference docs.
 *
 * Where it sits: over the private workspace package @session-resume-api/runtime (runtime/:
 * the contract loaded from spec/, its validators and the rules both sides execute: webhook URL
 * policy, delivery attempts, event identity, backoff, the resume path), bundled into this
 * package at build; never imports client/. The layers of its folders: docs/architecture.md.
 * The entry point is main.ts with config.ts (the only env readers).
 */
export { createApp } from './app.js';
export { checkAppContract } from './start-up/contract-self-check.js';
/** The one error of this package for an option it cannot work with; `option` names the option. */
export { OptionsError } from '@session-resume-api/runtime/options-error';
export type { AppDeps } from './app.js';
export { createMemorySessionStore } from './sessions/memory-session-store.js';
export type { MemorySessionStoreOptions } from './sessions/memory-session-store.js';
export { createRedisSessionStore } from './sessions/redis-session-store.js';
export type { RedisSessionStoreOptions } from './sessions/redis-session-store.js';
export { DEMO_SESSIONS, loadSessionSeeds, parseSessionSeeds, SeedFileError } from './sessions/session-seeds.js';
export { DEFAULT_IDEMPOTENCY_MAX_KEYS, IDEMPOTENCY_TTL_SECONDS } from './sessions/session-store.js';
export { SessionsLostError, StoreUnavailableError } from './errors/store-errors.js';
export type { WebhookMessage } from './core/webhook-message.js';
export type { ResumeTransition, Session, SessionSeed, SessionStore } from './sessions/session-store.js';
export { createMemoryDelivery } from './webhooks/memory-delivery.js';
export type { MemoryDeliveryOptions } from './webhooks/memory-delivery.js';
export { createRedisDelivery } from './webhooks/redis-delivery.js';
export type { RedisDelivery, RedisDeliveryOptions } from './webhooks/redis-delivery.js';
export { createDeliveryEngine } from './webhooks/delivery-engine.js';
export type { DeliveryEngine, DeliveryEngineOptions, DeliveryTarget } from './webhooks/delivery-engine.js';
export { createMemoryQueue } from './webhooks/memory-queue.js';
export type { MemoryQueueOptions } from './webhooks/memory-queue.js';
export type { AttemptHandler, AttemptOutcome, DeadEvent, DeliveryQueue, QueuedEvent } from './webhooks/delivery-queue.js';
export type {
  AttemptResult,
  DeliveryAttempt,
  DeliveryInspector,
  DeliveryObserver,
  DeliveryRecord,
  DeliveryState,
  DeliveryStats,
} from './webhooks/delivery-types.js';
export { parseRetrySchedule, STANDARD_WEBHOOKS_SCHEDULE_MS } from '@session-resume-api/runtime/delivery/retry-rules';
export type { WebhookDelivery } from './webhooks/webhook-delivery.js';
export { createDocsRouter } from './docs/create-docs-router.js';
export type { DocsRouterOptions } from './docs/create-docs-router.js';
export { createSandbox, sandboxSpecPath } from './sandbox/index.js';
export type { Sandbox, SandboxOptions, SandboxEvent } from './sandbox/index.js';
export { createRedisConnection, isCluster, waitUntilConnected } from './redis/create-redis-connection.js';
export type { RedisConnection, RedisConnectionOptions, RedisTarget } from './redis/create-redis-connection.js';
export { createRedisSeedMarker, resetRedisSessions, watchSeededSessions } from './sessions/session-seed-admin.js';
export { seedStore } from './sessions/seed-on-start.js';
export type { SeedMarker, SeedResult, SeedStoreOptions } from './sessions/seed-on-start.js';
export { openSeedSource } from './sessions/session-seeds.js';
export type { SeedSource } from './sessions/session-seeds.js';
