/**
 * session-resume-api/webhooks/redis: the receiver store shared by several instances, on Redis
 * (a single node or a Redis Cluster) through BullMQ. bullmq and ioredis are optional peer
 * dependencies: importing this subpath without them fails with a message naming
 * `npm install bullmq ioredis`. The receiver itself is in `session-resume-api/webhooks`.
 */
export { createRedisEventStore } from './redis-event-store.js';
export {
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_MAX_EVENTS_PER_JOB,
  DEFAULT_MAX_STALLED_COUNT,
  DEFAULT_QUEUE_NAME,
  DEFAULT_RECORD_TIMEOUT_MS,
  DEFAULT_REDIS_CONCURRENCY,
  DEFAULT_REDIS_PREFIX,
  DEFAULT_STALLED_INTERVAL_MS,
} from './store-options.js';
export type { RedisEventStoreOptions } from './store-options.js';
export type { RedisConnection } from './connection.js';
export { storeKeys, SCRIPTS } from './store-scripts.js';
export type { StoreKeys } from './store-scripts.js';
export { loadRedisLibraries, REDIS_STORE_INSTALL, RedisLibrariesMissingError } from './libraries.js';
export { OptionsError } from '@session-resume-api/runtime/options-error';
