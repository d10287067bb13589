/** The record path's deadline rule and the record script's arguments, as pure functions. */
import type { StoreKeys } from './store-scripts.js';

/** The deadline of one record call. */
export interface RecordDeadline {
  /** Redis's time when the call is sent, at least (ms). */
  fromMs: number;
  /** Redis's time after which the script must change nothing (ms): `fromMs` plus `waitMs`. */
  deadlineMs: number;
  /** How long this instance waits for the answer (ms), counted from now in its own clock. */
  waitMs: number;
}

/** What `recordDeadline` decides from. */
export interface RecordDeadlineInput {
  /** Local time (ms) the oldest delivery of the call asked: its answer's deadline counts from then. */
  oldestAt: number;
  recordTimeoutMs: number;
  now: number;
  /** Redis's time now, at least (redis-clock.ts), or undefined before any reading. */
  redisNow: number | undefined;
}

/**
 * What is left of the oldest delivery's `recordTimeoutMs`, stated in Redis's clock from a lower bound
 * of it, so Redis never records after this instance stopped waiting. Undefined when nothing is left or
 * Redis's time is unknown: the call is not sent and the deliveries are answered 503.
 * @example recordDeadline({ oldestAt: 1000, recordTimeoutMs: 2000, now: 1500, redisNow: 9000 }) // { fromMs: 9000, deadlineMs: 10500, waitMs: 1500 }
 */
export function recordDeadline({ oldestAt, recordTimeoutMs, now, redisNow }: RecordDeadlineInput): RecordDeadline | undefined {
  const waitMs = oldestAt + recordTimeoutMs - now;
  if (waitMs <= 0 || redisNow === undefined) return undefined;
  return { fromMs: redisNow, deadlineMs: redisNow + waitMs, waitMs };
}

/** What one call of the record script is given (store-scripts.ts RECORD). */
export interface RecordCallInput {
  /** Redis's time when the call was sent, at least (ms): the oldest bucket it may read is `fromMs - windowMs`'s. */
  fromMs: number;
  /** Redis's time after which the call must change nothing (ms): the newest bucket it may write is this one's. */
  deadlineMs: number;
  windowMs: number;
  bucketMs: number;
  batchId: string;
  /**
   * ms added to Redis's clock (the store's `clockSkewMs`, for tests of long windows).
   * @defaultValue 0
   */
  skewMs?: number;
  /** Four per event: identity field, webhook-id field or '', recording id, the event's batch item (JSON). */
  events: Array<string | number>;
}

/** Number of keys first, then every bucket hash the script may need between `fromMs` and `deadlineMs`, oldest first (cached per bucket). */
export function createRecordCall(keys: StoreKeys) {
  let cached: { first: number; last: number; keys: string[] } | undefined;
  return ({ fromMs, deadlineMs, windowMs, bucketMs, batchId, skewMs = 0, events }: RecordCallInput): Array<string | number> => {
    const first = Math.floor((fromMs - windowMs) / bucketMs);
    const last = Math.floor(deadlineMs / bucketMs);
    // Stryker disable next-line ConditionalExpression: the list is a cache; building it on every call gives the same keys
    if (cached?.first !== first || cached.last !== last) {
      const list: string[] = [];
      for (let b = first; b <= last; b++) list.push(`${keys.dedupe}:${b}`);
      cached = { first, last, keys: list };
    }
    return [3 + cached.keys.length, keys.inbox, keys.inboxAt, keys.dead, ...cached.keys, deadlineMs, first, bucketMs, windowMs, batchId, skewMs, ...events];
  };
}
