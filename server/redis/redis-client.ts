/** The ioredis client the Redis-backed parts share, tuned to fail fast and recover by itself. */
import { Redis } from 'ioredis';

/** Options of `createRedisClient`. */
export interface RedisClientOptions {
  /** A command without an answer fails after this many ms (default 1000), so a paused Redis becomes 503 within 2 s. */
  commandTimeoutMs?: number;
  /** Longest wait between reconnection attempts, in ms (default 1000). */
  maxReconnectDelayMs?: number;
  /** Called on connection errors (ioredis needs a listener; default: ignore). */
  onError?: (error: Error) => void;
}

/**
 * Creates a client that rejects commands at once while disconnected (no offline queue, one
 * try per command) and keeps reconnecting forever, so the server answers 503 while Redis is
 * down and recovers without a restart when it is back.
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  const maxDelay = options.maxReconnectDelayMs ?? 1000;
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 100, maxDelay),
  });
  client.on('error', options.onError ?? (() => undefined));
  return client;
}
