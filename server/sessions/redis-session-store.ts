/**
 * Redis `SessionStore`: one hash per session (`status`, `updatedAt`), resumed by a Lua script
 * so that the check and the flip are one atomic step for every process sharing the Redis.
 */
import type { Cluster, Redis } from 'ioredis';
import {
  PAUSED,
  RUNNING,
  StoreUnavailableError,
  type ResumeOutcome,
  type Session,
  type SessionStore,
} from './session-store.js';
import { seedRedisSessions } from '../redis/seed-redis-sessions.js';

/** Options of the Redis store. */
export interface RedisSessionStoreOptions {
  /** A client from `createRedisConnection`: one Redis or a Cluster (owned by the caller, who quits it). */
  client: Redis | Cluster;
  /** Prefix of every key (default `session-resume:`); tests use a random one. */
  keyPrefix?: string;
  /** Clock for `updatedAt` (default `() => new Date()`). */
  now?: () => Date;
}

// Redis runs a script without interleaving other commands, so of N concurrent resumes of
// one paused session exactly one sees `paused` (issue #3, the concurrency rule).
const RESUME_SCRIPT = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'not_found'} end
if status ~= ARGV[1] then return {'not_paused', status} end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updatedAt', ARGV[3])
return {'resumed', ARGV[3]}
`;

/** Creates a store over an existing client; every Redis failure becomes `StoreUnavailableError` (503). */
export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const { client } = options;
  const prefix = options.keyPrefix ?? 'session-resume:';
  const now = options.now ?? (() => new Date());
  const key = (id: string) => `${prefix}session:${id}`;
  const call = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (cause) {
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw new StoreUnavailableError(`Redis ${what} failed: ${detail}`, { cause });
    }
  };
  return {
    async resume(id): Promise<ResumeOutcome> {
      const updatedAt = now().toISOString();
      const [kind, value] = await call(
        'resume',
        () => client.eval(RESUME_SCRIPT, 1, key(id), PAUSED, RUNNING, updatedAt) as Promise<string[]>,
      );
      if (kind === 'not_found') return { kind: 'not_found' };
      if (kind === 'not_paused') return { kind: 'not_paused', status: String(value) };
      return { kind: 'resumed', session: { id, status: RUNNING, updatedAt: String(value) } };
    },
    async get(id): Promise<Session | undefined> {
      const fields = await call('get', () => client.hgetall(key(id)));
      if (fields.status === undefined) return undefined;
      return { id, status: fields.status, updatedAt: fields.updatedAt ?? '' };
    },
    async seed(seeds) {
      // Pipelined, grouped by hash slot: 1M sessions in seconds (server/redis/seed-redis-sessions.ts).
      return call('seed', () => seedRedisSessions({ client, seeds, key, updatedAt: now().toISOString() }));
    },
    async ping() {
      await call('ping', () => client.ping());
    },
  };
}
