/**
 * The Redis store's own keys and Lua scripts. Every key starts with the hash tag `{prefix}` (BullMQ's
 * queue keys too, via the queue prefix), so a script's keys share one Cluster slot. A script touches
 * only the keys it is given, and only this store's: BullMQ's keys are reached through its API alone.
 *
 * Dedupe records are fields of time-bucketed hashes (`…:rd:<bucket>`, 1/12 of the window each,
 * expiring a window after the bucket ends): about 110 bytes per identity instead of 210 for a key
 * with its own TTL. Buckets follow Redis's clock (TIME), so every instance uses the same ones; a
 * record is seen for the window to the window plus one bucket. The identity's record is also the
 * processed marker: its value, the recording id, gains a trailing `+` once the handler succeeded.
 *
 * Where a script reads Redis's clock (TIME) it adds the store's `clockSkewMs` (0 unless a test of a
 * long window moves the store's time forward); Redis's own key expiry is not moved.
 *
 * Inbox and queue hold batches: the first deliveries recorded by one record call, under a batch id
 * that becomes the BullMQ job id. A dead letter is one event, in the store's own keys.
 */
import type { RedisConnection } from './connection.js';

/** Buckets per dedupe window. */
export const BUCKETS_PER_WINDOW = 12;
/** Suffix of a dedupe record's value once its event was processed. */
export const PROCESSED_MARK = '+';

/** Every key the store writes under one prefix and queue (BullMQ's are BullMQ's). */
export interface StoreKeys {
  /** The BullMQ queue prefix: the hash tag alone, so the queue's keys share the store's slot. */
  bullPrefix: string;
  /** Base of the dedupe bucket hashes (`<base>:<bucket>`). */
  dedupe: string;
  /** Hash: batch id → batch (its events' data), from the recording until its job exists (or it was processed). */
  inbox: string;
  /** Sorted set: batch id by time recorded (or last claimed), for the sweep. */
  inboxAt: string;
  /** Sorted set: recording ids whose processing was dead-lettered, by time; a redelivery retries them. */
  dead: string;
  /** Hash: dead-lettered recording id → a batch of that one event, as the inbox holds it. */
  deadEvents: string;
  /** Hash: dead-lettered recording id → `{"attempts":n,"error":"…"}`. */
  deadWhy: string;
  /** Base of the per-session order marks (`<base>:<session id>`, session-order.ts). */
  order: string;
}

/** Neither `prefix` nor `queueName` contains ':', '{' or '}'. */
export function storeKeys(prefix: string, queueName: string): StoreKeys {
  const queue = `{${prefix}}:${queueName}`;
  return {
    bullPrefix: `{${prefix}}`,
    dedupe: `${queue}:rd`,
    inbox: `${queue}:inbox`,
    inboxAt: `${queue}:inbox-at`,
    dead: `${queue}:dead`,
    deadEvents: `${queue}:dead-events`,
    deadWhy: `${queue}:dead-why`,
    order: `${queue}:order`,
  };
}

/** The dedupe bucket hash that holds records made at `atMs` (Redis's clock). */
export const bucketKey = (keys: StoreKeys, atMs: number, bucketMs: number) => `${keys.dedupe}:${Math.floor(atMs / bucketMs)}`;

/** The record script's verdict on a call (the first value of its answer). */
export const RECORD_STATUS = {
  /** Recorded: the events' outcomes follow. */
  recorded: 0,
  /** Redis ran it after its deadline: nothing changed. */
  late: 1,
  /** Redis's clock is outside what the call's buckets cover (a clock stepped): nothing changed. */
  clock: 2,
} as const;

/** The fields of a dedupe key and of a `webhook-id`: the same compact identities as every store's (identity-field.ts). */
export { identityField as tripleField, webhookIdField } from '../identity-field.js';

/**
 * KEYS: inbox, inbox-at, dead, then consecutive dedupe buckets, oldest first (record-call.ts).
 * ARGV: deadline ms, index of the first bucket, bucket ms, window ms, batch id, clock skew ms, then
 * four per event: identity field, webhook-id field or '', new id, the event's batch item (JSON).
 *
 * Redis's clock (TIME) decides, so instances agree: a call run after its deadline (its caller
 * answered 503) changes nothing and returns {1, now}; buckets not covering the clock return
 * {2, now}. Otherwise the window's buckets are read (newest first), the newest written, and it
 * returns {0, now, then id, duplicate 0|1, dead-lettered 0|1 per event}. Dedupe fields and the
 * inbox entry are written in one step, so a record never exists without its event. TIME makes
 * the script non-deterministic: Redis 7 replicates its effects (the default there).
 */
const RECORD = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[6])
if now > tonumber(ARGV[1]) then return { ${RECORD_STATUS.late}, now } end
local first = tonumber(ARGV[2])
local bucketMs = tonumber(ARGV[3])
local windowMs = tonumber(ARGV[4])
local newest = 4 + math.floor(now / bucketMs) - first
local oldest = 4 + math.floor((now - windowMs) / bucketMs) - first
if oldest < 4 or newest > #KEYS then return { ${RECORD_STATUS.clock}, now } end
local out = { ${RECORD_STATUS.recorded}, now }
local items = {}
for e = 7, #ARGV, 4 do
  local id = ARGV[e + 2]
  local fields = { ARGV[e] }
  if ARGV[e + 1] ~= '' then fields[2] = ARGV[e + 1] end
  local found = false
  for k = newest, oldest, -1 do
    for _, field in ipairs(fields) do
      found = redis.call('HGET', KEYS[k], field)
      if found then break end
    end
    if found then break end
  end
  if not found then
    for _, field in ipairs(fields) do redis.call('HSET', KEYS[newest], field, id) end
    items[#items + 1] = ARGV[e + 3]
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
if #items > 0 then
  local at = string.format('%.0f', now)
  local batch = table.concat({ '{"receivedAt":', at, ',"events":[', table.concat(items, ','), ']}' })
  redis.call('HSET', KEYS[1], ARGV[5], batch)
  redis.call('ZADD', KEYS[2], at, ARGV[5])
  redis.call('PEXPIREAT', KEYS[newest], string.format('%.0f', (math.floor(now / bucketMs) + 1) * bucketMs + windowMs))
end
return out
`;

/**
 * KEYS: inbox, inbox-at. ARGV: batch id, batch id, ... Runs once `Queue.addBulk` made the jobs:
 * the entries leave the inbox (the job is the durable record from now on). Returns the number removed.
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
 * KEYS: inbox, inbox-at. ARGV: age ms, limit, clock skew ms. Entries older than `age` (Redis's clock) are ones a
 * dead instance never handed over: returns {id, data, ...} of those and pushes their time to now,
 * so one sweeper claims them per interval.
 */
const CLAIM_STALE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[3])
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[1]), 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  local data = redis.call('HGET', KEYS[1], id)
  if not data then
    redis.call('ZREM', KEYS[2], id)
  else
    redis.call('ZADD', KEYS[2], string.format('%.0f', now), id)
    out[#out + 1] = id
    out[#out + 1] = data
  end
end
return out
`;

/**
 * KEYS: the batch's dedupe bucket, dead. ARGV: identity field, id, per event. Returns 1 per event
 * still to run, 0 per event processed already or dead-lettered (left to the dead-letter retry).
 */
const PENDING = `
local out = {}
for i = 1, #ARGV, 2 do
  local run = redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] .. '${PROCESSED_MARK}' and not redis.call('ZSCORE', KEYS[2], ARGV[i + 1])
  out[#out + 1] = run and 1 or 0
end
return out
`;

/**
 * KEYS: inbox, inbox-at, dead, dead-events, dead-why, then dedupe buckets. ARGV, three per step, in
 * order: a KEYS index, identity field and recording id (handler succeeded: mark the record
 * processed, drop any dead letter of it), or 0, '' and a batch id (batch done: drop it from the inbox).
 */
const PROCESSED = `
for i = 1, #ARGV, 3 do
  local k = tonumber(ARGV[i])
  local id = ARGV[i + 2]
  if k == 0 then
    redis.call('HDEL', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
  else
    if redis.call('HGET', KEYS[k], ARGV[i + 1]) == id then
      redis.call('HSET', KEYS[k], ARGV[i + 1], id .. '${PROCESSED_MARK}')
    end
    if redis.call('ZREM', KEYS[3], id) == 1 then
      redis.call('HDEL', KEYS[4], id)
      redis.call('HDEL', KEYS[5], id)
    end
  end
end
return 1
`;

/**
 * KEYS: dead, dead-events, dead-why, inbox, inbox-at. ARGV: time ms, batch id, then per event:
 * recording id, the event as a batch of one (JSON), why (JSON). Dead-letters each event of a batch
 * that failed its last attempt and drops the batch from the inbox, in one step. Returns the count.
 */
const DEAD = `
for i = 3, #ARGV, 3 do
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[i])
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 2])
end
redis.call('HDEL', KEYS[4], ARGV[2])
redis.call('ZREM', KEYS[5], ARGV[2])
return (#ARGV - 2) / 3
`;

/**
 * KEYS: dead, dead-events, dead-why, inbox, inbox-at. ARGV: recording id, new batch id, clock skew ms. Moves a dead
 * letter to the inbox as its own batch (at Redis's time) in one step, so a crash loses nothing.
 * Returns the batch (JSON), or false when not dead-lettered here (an earlier version's stays put).
 */
const RETRY_DEAD = `
local batch = redis.call('HGET', KEYS[2], ARGV[1])
if not batch or redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return false end
local t = redis.call('TIME')
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HSET', KEYS[4], ARGV[2], batch)
redis.call('ZADD', KEYS[5], string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[3])), ARGV[2])
return batch
`;

/** KEYS: inbox (only for where it runs: the store's node on a cluster). Redis's clock: {seconds, microseconds}. */
const TIME = `return redis.call('TIME')`;

/** The scripts as ioredis commands on the store's own connection (EVALSHA, falling back to EVAL). */
export interface StoreCommands {
  /** `numberOfKeys` first (record-call.ts): a status and Redis's time, then three values per event, flat. */
  sraRecord(numberOfKeys: number, ...keysThenArgv: Array<string | number>): Promise<Array<string | number>>;
  sraHandedOver(inbox: string, inboxAt: string, ...ids: string[]): Promise<number>;
  sraClaimStale(inbox: string, inboxAt: string, ageMs: number, limit: number, skewMs: number): Promise<string[]>;
  sraPending(bucket: string, dead: string, ...fieldThenId: string[]): Promise<number[]>;
  /** `numberOfKeys` first: the buckets of the events marked follow the five fixed keys. */
  sraProcessed(numberOfKeys: number, ...keysThenArgv: Array<string | number>): Promise<number>;
  sraDead(dead: string, deadEvents: string, deadWhy: string, inbox: string, inboxAt: string, ...argv: Array<string | number>): Promise<number>;
  sraRetryDead(
    dead: string,
    deadEvents: string,
    deadWhy: string,
    inbox: string,
    inboxAt: string,
    id: string,
    batchId: string,
    skewMs: number,
  ): Promise<string | null>;
  sraTime(inbox: string): Promise<[string, string]>;
}

/** Every script with its number of keys (undefined: given with each call); the slot check reads this list. */
export const SCRIPTS = [
  { name: 'sraRecord', numberOfKeys: undefined, lua: RECORD },
  { name: 'sraHandedOver', numberOfKeys: 2, lua: HANDED_OVER },
  { name: 'sraClaimStale', numberOfKeys: 2, lua: CLAIM_STALE },
  { name: 'sraPending', numberOfKeys: 2, lua: PENDING },
  { name: 'sraProcessed', numberOfKeys: undefined, lua: PROCESSED },
  { name: 'sraDead', numberOfKeys: 5, lua: DEAD },
  { name: 'sraRetryDead', numberOfKeys: 5, lua: RETRY_DEAD },
  { name: 'sraTime', numberOfKeys: 1, lua: TIME },
] as const;

/** Defines the scripts on the store's own connection (never BullMQ's) with `defineCommand`. */
export function withStoreCommands(connection: RedisConnection): RedisConnection & StoreCommands {
  for (const script of SCRIPTS) {
    connection.defineCommand(script.name, script.numberOfKeys === undefined ? { lua: script.lua } : { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }
  return connection as RedisConnection & StoreCommands;
}
