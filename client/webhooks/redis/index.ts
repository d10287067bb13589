/**
 * session-resume-api/webhooks/redis: the receiver store shared by several instances, on Redis
 * (a single node or a Redis Cluster) through BullMQ. bullmq and ioredis are optional peer
 * dependencies: importing this subpath without them fails with a message naming
 * `npm install bullmq ioredis`. The receiver itself is in `session-resume-api/webhooks`.
 */
export { createRedisEventStore } from './redis-event-store.js';
export type { RedisClientSource, RedisClusterSource, RedisEventStoreBaseOptions, RedisEventStoreOptions, RedisUrlSource } from './store-options.js';
export type { RedisConnection } from './connection.js';
export { OptionsError } from '@session-resume-api/runtime/options-error';
export type { OptionsErrorOptions } from '@session-resume-api/runtime/options-error';
// The store's types, so that what the factory returns can be named from this entry too.
export type {
  DeadLetter,
  HandlerRun,
  OrderedReceiverStore,
  ProcessingOptions,
  ReceiverStore,
  RecordOutcome,
  RecordedEvent,
  SessionPosition,
} from '../store.js';
export type { ReceivedEvent } from '../tolerant-event.js';
export type { TraceContext } from '@session-resume-api/runtime/trace-context';
export type { ApiComponents, ApiOperations, ApiWebhooks, SessionEvent } from '@session-resume-api/runtime/types';
