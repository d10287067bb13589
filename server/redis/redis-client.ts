import type { Redis } from 'ioredis';
import { createRedisConnection, type RedisConnectionOptions } from './create-redis-connection.js';

/** Options of `createRedisClient`: those of `createRedisConnection`. */
export type RedisClientOptions = Pick<RedisConnectionOptions, 'commandTimeoutMs' | 'maxReconnectDelayMs' | 'onError'>;

/**
 * A client that rejects commands at once while disconnected and reconnects forever, so the server
 * answers 503 while Redis is down and recovers without a restart.
 * @example const client = createRedisClient('redis://127.0.0.1:6379');
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  return createRedisConnection({ url }, options) as Redis;
}
