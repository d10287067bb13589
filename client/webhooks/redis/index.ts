/**
 * session-resume-api/webhooks/redis: the receiver store shared by several instances, on Redis
 * (a single node or a Redis Cluster) through BullMQ. bullmq and ioredis are optional peer
 * dependencies: importing this subpath without them fails with a message naming
 * `npm install bullmq ioredis`. The receiver itself is in `session-resume-api/webhooks`.
 */
export { createRedisEventStore } from './redis-event-store.js';
export type { RedisEventStoreOptions } from './store-options.js';
export type { RedisConnection } from './connection.js';
export { OptionsError } from '@session-resume-api/runtime/options-error';
