/**
 * session-resume-api/server: the reference server as a library — build the app, pick a
 * session store, attach a webhook sender, serve the reference docs.
 */
export { AppOptionsError, createApp } from './app.js';
export type { AppDeps } from './app.js';
export { createMemorySessionStore } from './sessions/memory-session-store.js';
export type { MemorySessionStoreOptions } from './sessions/memory-session-store.js';
export { createRedisSessionStore } from './sessions/redis-session-store.js';
export type { RedisSessionStoreOptions } from './sessions/redis-session-store.js';
export { DEMO_SESSIONS, loadSessionSeeds, parseSessionSeeds, SeedFileError } from './sessions/session-seeds.js';
export { StoreUnavailableError } from './sessions/session-store.js';
export type { ResumeOutcome, Session, SessionSeed, SessionStore } from './sessions/session-store.js';
export { createWebhookSender } from './webhooks/create-webhook-sender.js';
export type { WebhookSender } from './webhooks/webhook-sender.js';
export { createDocsRouter } from './docs/create-docs-router.js';
export type { DocsRouterOptions } from './docs/create-docs-router.js';
export { createRedisConnection, isCluster, RedisTargetError, waitUntilConnected } from './redis/create-redis-connection.js';
export type { RedisConnection, RedisConnectionOptions, RedisTarget } from './redis/create-redis-connection.js';
export { createRedisSeedMarker, resetRedisSessions } from './redis/session-seed-admin.js';
export { seedStore } from './sessions/seed-on-start.js';
export type { SeedMarker, SeedResult, SeedStoreOptions } from './sessions/seed-on-start.js';
export { openSeedSource } from './sessions/session-seeds.js';
export type { SeedSource } from './sessions/session-seeds.js';
