/** A single-node client with the options of every Redis connection of the server (`createRedisConnection`). */
import type { Redis } from 'ioredis';
import { createRedisConnection, type RedisConnectionOptions } from './create-redis-connection.js';

/** Options of `createRedisClient`: those of `createRedisConnection`. */
export type RedisClientOptions = Pick<RedisConnectionOptions, 'commandTimeoutMs' | 'maxReconnectDelayMs' | 'onError'>;

/**
 * Creates a client that rejects commands at once while disconnected (no offline queue, no
 * retry of a command whose connection closed) and keeps reconnecting forever, so the server
 * answers 503 while Redis is down and recovers without a restart when it is back.
 *
 * @example const client = createRedisClient('redis://127.0.0.1:6379');
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  return createRedisConnection({ url }, options) as Redis;
}
