/** Redis `SessionStore`: one hash per session; a resume is one Lua script (redis-resume.ts). */
import type { Cluster, Redis } from 'ioredis';
import { checkKeyPrefix, DEFAULT_SERVER_KEY_PREFIX, redisKeys } from '../redis/redis-keys.js';
import { IDEMPOTENCY_TTL_SECONDS, type Session, type SessionStore } from './session-store.js';
import { seedRedisSessions } from './seed-redis-sessions.js';
import { resumeOnRedis, storeCall, type RedisResumeContext } from './redis-resume.js';
import { checkInteger } from '@session-resume-api/runtime/options-error';

export { EVENT_TTL_SECONDS } from './redis-resume.js';

/** Options of the Redis store. */
export interface RedisSessionStoreOptions {
  /** A client from `createRedisConnection`: one Redis or a Cluster (owned by the caller, who quits it). */
  client: Redis | Cluster;
  /**
   * Prefix of every key (no `{` or `}`).
   * @defaultValue {@link DEFAULT_SERVER_KEY_PREFIX} (`'session-resume:'`)
   */
  keyPrefix?: string;
  /**
   * Clock for `updatedAt`.
   * @defaultValue `() => new Date()`
   */
  now?: () => Date;
  /**
   * Write each resume's event for the outbox; false when no webhook is configured (nothing would clear them).
   * @defaultValue `true`
   */
  events?: boolean;
  /**
   * Seconds an Idempotency-Key and its answer are kept (`IDEMPOTENCY_TTL`).
   * @defaultValue {@link IDEMPOTENCY_TTL_SECONDS} (86 400: 24 h)
   */
  idempotencyTtlSeconds?: number;
}

/**
 * Creates a store over an existing client; every Redis failure becomes `StoreUnavailableError` (503).
 * @example
 * const redis = createRedisConnection({ url: 'redis://127.0.0.1:6379' });
 * const store = createRedisSessionStore({ client: redis, keyPrefix: 'session-resume:' });
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const { client } = options;
  const context: RedisResumeContext = {
    client,
    keys: redisKeys(checkKeyPrefix(options.keyPrefix ?? DEFAULT_SERVER_KEY_PREFIX)),
    now: options.now ?? (() => new Date()),
    events: options.events ?? true,
    idempotencyTtlSeconds: options.idempotencyTtlSeconds ?? IDEMPOTENCY_TTL_SECONDS,
  };
  checkInteger('createRedisSessionStore: idempotencyTtlSeconds', context.idempotencyTtlSeconds, { min: 1 });
  const { keys, now } = context;
  return {
    resume: (id, resumeOptions) => resumeOnRedis(context, id, resumeOptions),
    async get(id): Promise<Session | undefined> {
      const fields = await storeCall('get', () => client.hgetall(keys.session(id)));
      if (fields.status === undefined) return undefined;
      return { id, status: fields.status, updatedAt: fields.updatedAt ?? '' };
    },
    async seed(seeds) {
      return storeCall('seed', () => seedRedisSessions({ client, seeds, key: keys.session, updatedAt: now().toISOString() }));
    },
    async ping() {
      await storeCall('ping', () => client.ping());
    },
  };
}
