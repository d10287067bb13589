/**
 * The Redis store's keys and its Lua scripts. Every key starts with the hash tag `{prefix}`,
 * the same tag BullMQ's queue keys carry, so each script's keys live in one slot on Redis
 * Cluster and the same scripts run unchanged on a single node.
 *
 * Dedupe records are fields of time-bucketed hashes (`…:rd:<bucket>`, one bucket per
 * 1/12 of the window, expiring a window after the bucket ends): about 110 bytes per identity
 * instead of about 210 for a key with its own TTL. A record is seen for at least the window
 * and at most the window plus one bucket.
 */
import { hash } from 'node:crypto';
import type { RedisConnection } from './connection.js';

/** Buckets per dedupe window. */
export const BUCKETS_PER_WINDOW = 12;

/** Names of every key the store uses under one prefix and queue. */
export interface StoreKeys {
  /** The BullMQ prefix: the hash tag alone. */
  bullPrefix: string;
  /** Base of the dedupe bucket hashes (`<base>:<bucket>`). */
  dedupe: string;
  /** Hash: recording id → event data, until its processing starts. */
  inbox: string;
  /** Sorted set: recording id by time recorded (or last claimed), for the sweep. */
  inboxAt: string;
  /** BullMQ's failed set of the queue (the dead letters). */
  failed: string;
  /** Prefix of BullMQ job hashes (`<jobKey><jobId>`). */
  jobKey: string;
}

/** The keys of a store with `prefix` and `queueName` (neither contains ':', '{' or '}'). */
export function storeKeys(prefix: string, queueName: string): StoreKeys {
  const tag = `{${prefix}}`;
  const queue = `${tag}:${queueName}`;
  return { bullPrefix: tag, dedupe: `${queue}:rd`, inbox: `${queue}:inbox`, inboxAt: `${queue}:inbox-at`, failed: `${queue}:failed`, jobKey: `${queue}:` };
}

const short = (bytes: Buffer) => bytes.subarray(0, 16).toString('base64url');
/** Field of a dedupe key (the sha256 hex of the triple): 't' + 128 bits, base64url. */
export const tripleField = (dedupeKey: string) => `t${short(Buffer.from(dedupeKey, 'hex'))}`;
/** Field of a `webhook-id`: 'w' + 128 bits of its sha256, base64url. */
export const webhookIdField = (webhookId: string) => `w${short(hash('sha256', webhookId, 'buffer'))}`;

/**
 * KEYS: dedupe base, inbox, inbox-at, failed. ARGV: triple field, webhook-id field or '',
 * new id, now ms, window ms, bucket ms, event data.
 * Returns {id, duplicate 0|1, dead-lettered 0|1}. A first delivery writes its dedupe fields
 * and its inbox entry in the same step, so a record never exists without its event.
 */
const RECORD = `
local now = tonumber(ARGV[4])
local window = tonumber(ARGV[5])
local bucket = tonumber(ARGV[6])
local current = math.floor(now / bucket)
local oldest = math.floor((now - window) / bucket)
local fields = { ARGV[1] }
if ARGV[2] ~= '' then fields[2] = ARGV[2] end
for b = current, oldest, -1 do
  local key = KEYS[1] .. ':' .. b
  for _, field in ipairs(fields) do
    local id = redis.call('HGET', key, field)
    if id then
      local dead = redis.call('ZSCORE', KEYS[4], id)
      if dead then return { id, 1, 1 } end
      return { id, 1, 0 }
    end
  end
end
local key = KEYS[1] .. ':' .. current
for _, field in ipairs(fields) do redis.call('HSET', key, field, ARGV[3]) end
redis.call('PEXPIREAT', key, (current + 1) * bucket + window)
redis.call('HSET', KEYS[2], ARGV[3], ARGV[7])
redis.call('ZADD', KEYS[3], now, ARGV[3])
return { ARGV[3], 0, 0 }
`;

/**
 * KEYS: inbox, inbox-at. ARGV: job key prefix, id, id, ... Runs in the hand-over's MULTI, after
 * the jobs were added: each entry whose job now exists leaves the inbox, in the same atomic step
 * (an entry whose job could not be added stays for the sweep). Returns the number removed.
 */
const HANDED_OVER = `
local removed = 0
for i = 2, #ARGV do
  if redis.call('EXISTS', ARGV[1] .. ARGV[i]) == 1 then
    redis.call('HDEL', KEYS[1], ARGV[i])
    removed = removed + redis.call('ZREM', KEYS[2], ARGV[i])
  end
end
return removed
`;

/**
 * KEYS: inbox, inbox-at. ARGV: cutoff ms, now ms, limit, job key prefix.
 * Entries recorded before the cutoff whose job does not exist were acknowledged by an
 * instance that died before handing them to BullMQ: returns {id, data, ...} of those and
 * pushes their time to now, so one sweeper claims them per interval.
 */
const CLAIM_STALE = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(ids) do
  local data = redis.call('HGET', KEYS[1], id)
  if not data then
    redis.call('ZREM', KEYS[2], id)
  else
    redis.call('ZADD', KEYS[2], ARGV[2], id)
    if redis.call('EXISTS', ARGV[4] .. id) == 0 then
      out[#out + 1] = id
      out[#out + 1] = data
    end
  end
end
return out
`;

/** The scripts as ioredis commands on `connection` (EVALSHA, falling back to EVAL). */
export interface StoreCommands {
  sraRecord(dedupe: string, inbox: string, inboxAt: string, failed: string, ...argv: Array<string | number>): Promise<[string, number, number]>;
  sraHandedOver(inbox: string, inboxAt: string, jobKey: string, ...ids: string[]): Promise<number>;
  sraClaimStale(inbox: string, inboxAt: string, cutoff: number, now: number, limit: number, jobKey: string): Promise<string[]>;
}

/** Every script with its number of keys (the slot check reads this list). */
export const SCRIPTS = [
  { name: 'sraRecord', numberOfKeys: 4, lua: RECORD },
  { name: 'sraHandedOver', numberOfKeys: 2, lua: HANDED_OVER },
  { name: 'sraClaimStale', numberOfKeys: 2, lua: CLAIM_STALE },
] as const;

/** Defines the scripts on `connection` (idempotent) and returns it typed with them. */
export function withStoreCommands(connection: RedisConnection): RedisConnection & StoreCommands {
  const target = connection as RedisConnection & Partial<StoreCommands>;
  if (typeof target.sraRecord !== 'function') {
    for (const script of SCRIPTS) connection.defineCommand(script.name, { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }
  return target as RedisConnection & StoreCommands;
}
