/**
 * An express-rate-limit store counting in Redis (fixed window), shared by every process. Not
 * rate-limit-redis 6.0.1: it caches a failed SCRIPT LOAD for good, so a Redis outage at start-up breaks it until a restart.
 */
import type { Cluster, Redis } from 'ioredis';
import type { IncrementResponse, Options, Store } from 'express-rate-limit';
import { StoreUnavailableError } from '../errors/store-errors.js';

// INCR and the window's expiry in one atomic step; returns the count and the ms left.
const INCREMENT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {hits, ttl}
`;

/**
 * Creates the store over one Redis or a Cluster. Each counter's key is `<prefix>{<API key id,
 * percent-encoded>}`: the id is the hash tag, spreading counters over cluster slots by key, and a
 * `{` or `}` in an id cannot move its tag. Redis failures throw `StoreUnavailableError`.
 * @example createRateLimit({ limit: 100, windowMs: 60_000, store: createRedisRateLimitStore(redis) }, keyOf);
 */
export function createRedisRateLimitStore(client: Redis | Cluster, keyPrefix = 'session-resume:rate:'): Store {
  let windowMs = 60_000;
  const counter = (key: string) => `${keyPrefix}{${encodeURIComponent(key)}}`;
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (cause) {
      throw new StoreUnavailableError(`Redis rate limit failed: ${(cause as Error).message}`, { cause });
    }
  };
  return {
    prefix: keyPrefix,
    localKeys: false,
    init(options: Options) {
      windowMs = options.windowMs;
    },
    async increment(key): Promise<IncrementResponse> {
      const [hits, ttl] = (await guard(() => client.eval(INCREMENT_SCRIPT, 1, counter(key), String(windowMs)))) as [number, number];
      return { totalHits: hits, resetTime: new Date(Date.now() + ttl) };
    },
    async decrement(key) {
      await guard(() => client.decr(counter(key)));
    },
    async resetKey(key) {
      await guard(() => client.del(counter(key)));
    },
  };
}
