/**
 * The Redis store's own keys and its Lua scripts. Every key starts with the hash tag `{prefix}`
 * (the tag BullMQ's queue keys carry too, through the queue prefix), so a script's keys live in
 * one slot on Redis Cluster and the same scripts run unchanged on a single node. A script
 * touches only the keys it is given (KEYS), and only keys of this store: BullMQ's keys are
 * BullMQ's, reached through its `Queue` and `Worker` alone.
 *
 * Dedupe records are fields of time-bucketed hashes (`…:rd:<bucket>`, one bucket per 1/12 of
 * the window, expiring a window after the bucket ends): about 110 bytes per identity instead
 * of about 210 for a key with its own TTL. A record is seen for at least the window and at most
 * the window plus one bucket. The record of the payload's identity also carries the processed
 * marker: its value, the recording id, gains a trailing `+` once the handler succeeded.
 */
import { hash } from 'node:crypto';
import type { RedisConnection } from './connection.js';

/** Buckets per dedupe window. */
export const BUCKETS_PER_WINDOW = 12;
/** Suffix of a dedupe record's value once its event was processed. */
export const PROCESSED_MARK = '+';

/** Names of every key the store writes under one prefix and queue (BullMQ's keys are not listed: they are BullMQ's). */
export interface StoreKeys {
  /** The BullMQ queue prefix: the hash tag alone, so the queue's keys share the store's slot. */
  bullPrefix: string;
  /** Base of the dedupe bucket hashes (`<base>:<bucket>`). */
  dedupe: string;
  /** Hash: recording id → event data, from the recording until its job exists (or it was processed). */
  inbox: string;
  /** Sorted set: recording id by time recorded (or last claimed), for the sweep. */
  inboxAt: string;
  /** Sorted set: recording ids whose processing was dead-lettered, by time; a redelivery retries them. */
  dead: string;
}

/** The keys of a store with `prefix` and `queueName` (neither contains ':', '{' or '}'). */
export function storeKeys(prefix: string, queueName: string): StoreKeys {
  const queue = `{${prefix}}:${queueName}`;
  return { bullPrefix: `{${prefix}}`, dedupe: `${queue}:rd`, inbox: `${queue}:inbox`, inboxAt: `${queue}:inbox-at`, dead: `${queue}:dead` };
}

/** The dedupe bucket hash that holds records made at `atMs`. */
export const bucketKey = (keys: StoreKeys, atMs: number, bucketMs: number) => `${keys.dedupe}:${Math.floor(atMs / bucketMs)}`;

/**
 * The bucket hashes a recording at `nowMs` reads, newest (the one it writes) first, and when
 * the newest expires. Consecutive calls within one bucket share the list.
 */
export function createBucketWindow(keys: StoreKeys) {
  let cached: { current: number; windowMs: number; bucketMs: number; keys: string[]; expireAt: number } | undefined;
  return (nowMs: number, windowMs: number, bucketMs: number): { keys: string[]; expireAt: number } => {
    const current = Math.floor(nowMs / bucketMs);
    if (cached?.current !== current || cached.windowMs !== windowMs || cached.bucketMs !== bucketMs) {
      const oldest = Math.floor((nowMs - windowMs) / bucketMs);
      const list: string[] = [];
      for (let b = current; b >= oldest; b--) list.push(`${keys.dedupe}:${b}`);
      cached = { current, windowMs, bucketMs, keys: list, expireAt: (current + 1) * bucketMs + windowMs };
    }
    return cached;
  };
}

const short = (bytes: Buffer) => bytes.subarray(0, 16).toString('base64url');
const SHA256_HEX = /^[0-9a-f]{64}$/i;
/**
 * Field of a dedupe key: 't' + 128 bits, base64url, of the key itself when it is a sha256 hex
 * digest (the receiver's identity keys are), else of its sha256.
 */
export const tripleField = (dedupeKey: string) => `t${short(SHA256_HEX.test(dedupeKey) ? Buffer.from(dedupeKey, 'hex') : hash('sha256', dedupeKey, 'buffer'))}`;
/** Field of a `webhook-id`: 'w' + 128 bits of its sha256, base64url. */
export const webhookIdField = (webhookId: string) => `w${short(hash('sha256', webhookId, 'buffer'))}`;

/**
 * KEYS: inbox, inbox-at, dead, then the dedupe buckets of the window, newest first.
 * ARGV: newest bucket's expiry ms, then per event: identity field, webhook-id field or '',
 * new id, time recorded ms, event data (five each; several events recorded in one call).
 * Returns {id, duplicate 0|1, dead-lettered 0|1} per event, flat, in order. A first delivery
 * writes its dedupe fields and its inbox entry in the same step, so a record never exists
 * without its event; a later event of the same call sees the records of the earlier ones.
 */
const RECORD = `
local out = {}
local wrote = false
for e = 2, #ARGV, 5 do
  local id = ARGV[e + 2]
  local fields = { ARGV[e] }
  if ARGV[e + 1] ~= '' then fields[2] = ARGV[e + 1] end
  local found = false
  for k = 4, #KEYS do
    for _, field in ipairs(fields) do
      found = redis.call('HGET', KEYS[k], field)
      if found then break end
    end
    if found then break end
  end
  if not found then
    for _, field in ipairs(fields) do redis.call('HSET', KEYS[4], field, id) end
    redis.call('HSET', KEYS[1], id, ARGV[e + 4])
    redis.call('ZADD', KEYS[2], ARGV[e + 3], id)
    wrote = true
    out[#out + 1] = id
    out[#out + 1] = 0
    out[#out + 1] = 0
  elseif string.sub(found, -1) == '${PROCESSED_MARK}' then
    out[#out + 1] = string.sub(found, 1, -2)
    out[#out + 1] = 1
    out[#out + 1] = 0
  else
    out[#out + 1] = found
    out[#out + 1] = 1
    out[#out + 1] = redis.call('ZSCORE', KEYS[3], found) and 1 or 0
  end
end
if wrote then redis.call('PEXPIREAT', KEYS[4], ARGV[1]) end
return out
`;

/**
 * KEYS: inbox, inbox-at. ARGV: id, id, ... Runs once `Queue.addBulk` made the jobs: the
 * entries leave the inbox (the job is the durable record from now on). Returns the number removed.
 */
const HANDED_OVER = `
local removed = 0
for i = 1, #ARGV do
  redis.call('HDEL', KEYS[1], ARGV[i])
  removed = removed + redis.call('ZREM', KEYS[2], ARGV[i])
end
return removed
`;

/**
 * KEYS: inbox, inbox-at. ARGV: cutoff ms, now ms, limit.
 * Entries recorded (or last claimed) before the cutoff are still in the inbox because the
 * instance that acknowledged them died, or lost Redis, before its hand-over finished: returns
 * {id, data, ...} of those and pushes their time to now, so one sweeper claims them per interval.
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
    out[#out + 1] = id
    out[#out + 1] = data
  end
end
return out
`;

/**
 * KEYS: the event's dedupe bucket, inbox, inbox-at, dead. ARGV: identity field, id.
 * After a successful handler run: marks the dedupe record processed (a job added again for
 * this id, by a late hand-over or sweep, then runs nothing) and drops what is left of the
 * event in the inbox and the dead set.
 */
const PROCESSED = `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '${PROCESSED_MARK}')
end
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('ZREM', KEYS[4], ARGV[2])
return 1
`;

/** The scripts as ioredis commands on the store's own connection (EVALSHA, falling back to EVAL). */
export interface StoreCommands {
  /** `numberOfKeys` first: the number of buckets read depends on the window. Three values per event, flat. */
  sraRecord(numberOfKeys: number, ...keysThenArgv: Array<string | number>): Promise<Array<string | number>>;
  sraHandedOver(inbox: string, inboxAt: string, ...ids: string[]): Promise<number>;
  sraClaimStale(inbox: string, inboxAt: string, cutoff: number, now: number, limit: number): Promise<string[]>;
  sraProcessed(bucket: string, inbox: string, inboxAt: string, dead: string, field: string, id: string): Promise<number>;
}

/** Every script with its number of keys (undefined: given with each call); the slot check reads this list. */
export const SCRIPTS = [
  { name: 'sraRecord', numberOfKeys: undefined, lua: RECORD },
  { name: 'sraHandedOver', numberOfKeys: 2, lua: HANDED_OVER },
  { name: 'sraClaimStale', numberOfKeys: 2, lua: CLAIM_STALE },
  { name: 'sraProcessed', numberOfKeys: 4, lua: PROCESSED },
] as const;

/**
 * Defines the scripts on `connection` with ioredis' `defineCommand` and returns it typed with
 * them. The connection is the store's own: BullMQ's connections never carry these commands.
 */
export function withStoreCommands(connection: RedisConnection): RedisConnection & StoreCommands {
  for (const script of SCRIPTS) {
    connection.defineCommand(script.name, script.numberOfKeys === undefined ? { lua: script.lua } : { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }
  return connection as RedisConnection & StoreCommands;
}
