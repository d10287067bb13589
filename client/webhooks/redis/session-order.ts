/**
 * Per-session order on Redis (`order: 'per-session'`): one key per session holding the newest
 * position processed, `<time>:<arrival>:<recording id>`, compared and moved by one Lua script,
 * so every instance sharing the store sees one order. The key carries the store's hash tag
 * (one slot on Redis Cluster) and expires a dedupe window after its last move: about 120 bytes
 * a session seen within the window. A script of its own, run at processing time: the
 * recording path is untouched.
 */
import { sha256Hex } from '@session-resume-api/runtime/sha256';
import { StoreUnavailableError, type SessionPosition } from '../store.js';
import type { RedisConnection } from './connection.js';
import type { StoreKeys } from './store-scripts.js';

/**
 * KEYS[1] the session's mark; ARGV time, arrival, id, ttl (ms). Returns 0 when the position is
 * older than the mark (an earlier time, or the same time and an earlier arrival; never for the
 * mark's own id), else 1, after moving the mark to the position when it is newer.
 */
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
