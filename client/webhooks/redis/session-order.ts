/**
 * Per-session order on Redis: one key per session holding the newest processed position
 * (`<time>:<arrival>:<recording id>`), moved by one Lua script so instances share one order. It
 * expires a dedupe window after its last move (about 120 bytes a session); the record path is untouched.
 */
import { sha256Hex } from '@session-resume-api/runtime/sha256';
import { StoreUnavailableError, type SessionPosition } from '../store.js';
import type { RedisConnection } from './connection.js';
import type { StoreKeys } from './store-scripts.js';

/** KEYS[1] the mark; ARGV time, arrival, id, ttl ms. 0 when older than the mark (never its own id), else 1, moving a newer mark. */
const ADVANCE = `
local mark = redis.call('GET', KEYS[1])
local t, a, id = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
if mark then
  local mt, ma, mid = string.match(mark, '^(%-?%d+):(%d+):(.*)$')
  mt = tonumber(mt)
  ma = tonumber(ma)
  if mid ~= id and (t < mt or (t == mt and a < ma)) then return 0 end
  if mid == id or not (t > mt or (t == mt and a > ma)) then
    redis.call('PEXPIRE', KEYS[1], ARGV[4])
    return 1
  end
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[2] .. ':' .. id, 'PX', ARGV[4])
return 1
`;

const COMMAND = 'sraAdvanceSession';
type WithAdvance = { [COMMAND](key: string, time: number, arrival: number, id: string, ttlMs: number): Promise<number> };

/** The key of a session's mark; a session id longer than 128 characters is hashed. */
export function sessionMarkKey(keys: StoreKeys, sessionId: string): string {
  return `${keys.order}:${sessionId.length <= 128 ? sessionId : `sha256:${sha256Hex(sessionId)}`}`;
}

/** Defines the script on the store's connection and returns `advanceSession`. */
export function createSessionOrder(connection: RedisConnection, keys: StoreKeys) {
  connection.defineCommand(COMMAND, { numberOfKeys: 1, lua: ADVANCE });
  const redis = connection as RedisConnection & WithAdvance;
  return async (position: SessionPosition, windowSeconds: number): Promise<boolean> => {
    try {
      const ttlMs = Math.max(1, Math.round(windowSeconds * 1000));
      return (await redis[COMMAND](sessionMarkKey(keys, position.sessionId), position.time, position.arrival, position.id, ttlMs)) === 1;
    } catch (error) {
      throw new StoreUnavailableError(`Redis could not check the session's order: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  };
}
