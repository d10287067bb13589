/**
 * Every Redis key the server writes. Keys one Lua script touches share a hash slot, so scripts run on
 * Cluster: the percent-encoded session id tags per-session keys; the intents and BullMQ queue share `{outbox}`.
 */
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { createHash, randomUUID } from 'node:crypto';

/** Default prefix of every Redis key the reference server writes (`REDIS_KEY_PREFIX`). */
export const DEFAULT_SERVER_KEY_PREFIX = 'session-resume:';

/** Checks a key prefix: any text without `{` or `}` (they would change the hash tag). */
export function checkKeyPrefix(prefix: string): string {
  if (/[{}]/.test(prefix)) throw new OptionsError(`Redis key prefix "${prefix}" must not contain { or }.`, { option: 'keyPrefix' });
  return prefix;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The key names under one prefix.
 * @example redisKeys('session-resume:').session('a/b') // 'session-resume:session:{a%2Fb}'
 */
export function redisKeys(prefix: string) {
  const tag = (sessionId: string) => `{${encodeURIComponent(sessionId)}}`;
  const keyHash = (scope: string, key: string) => sha256(JSON.stringify([scope, key]));
  return {
    /** Hash of one session (`status`, `updatedAt`). */
    session: (sessionId: string) => `${prefix}session:${tag(sessionId)}`,
    /** The recorded answer of (scope, Idempotency-Key) for this session. */
    idempotency: (sessionId: string, scope: string, key: string) => `${prefix}idem:${tag(sessionId)}:${keyHash(scope, key)}`,
    /** Binds (scope, Idempotency-Key) to its first session id (a single-key command: any slot). */
    idempotencyClaim: (scope: string, key: string) => `${prefix}idem-claim:${keyHash(scope, key)}`,
    /** The event a resume attempt wrote (JSON), or `-` when it wrote none. */
    event: (sessionId: string, eventId: string) => `${prefix}outbox:${tag(sessionId)}:${eventId}`,
    /** Sorted set of resume attempts whose event may still need a delivery job (score: ms since epoch). */
    intents: `${prefix}{outbox}:intents`,
    /** The webhook endpoint's health (JSON), shared by every instance. */
    endpointHealth: `${prefix}{outbox}:endpoint-health`,
    /** The endpoint's held backlog: sorted set of held job ids by due time (ms since the epoch). */
    held: `${prefix}{outbox}:held`,
    /** Held job ids a release took and has not finished promoting (score: due time), put back if it dies. */
    heldReleasing: `${prefix}{outbox}:held-releasing`,
    /** The claim of the release under way (one instance at a time), expiring on its own. */
    heldLease: `${prefix}{outbox}:held-lease`,
    /** Set once the jobs an earlier version parked without recording them in `held` were recorded. */
    heldAdopted: `${prefix}{outbox}:held-adopted`,
    /** BullMQ's own prefix for the delivery queue (its keys become `<this>:webhooks:…`). */
    queuePrefix: `${prefix}{outbox}`,
  };
}

/** The member of `intents` for one resume attempt: `[sessionId, eventId]` as JSON. */
export function intentMember(sessionId: string, eventId: string): string {
  return JSON.stringify([sessionId, eventId]);
}

/** The key names, as returned by `redisKeys`. */
export type RedisKeys = ReturnType<typeof redisKeys>;

/**
 * A fresh event id: `msg_` and a UUID v7 (RFC 9562), whose first 48 bits are the creation time in
 * ms, so the relay can tell an intent's age from its member alone.
 */
export function timeOrderedEventId(now: number = Date.now()): string {
  const time = now.toString(16).padStart(12, '0');
  return `msg_${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`;
}

/** The creation time (ms since the epoch) of an id from `timeOrderedEventId`; undefined for any other id. */
export function intentCreatedAt(eventId: string): number | undefined {
  const match = /^msg_([0-9a-f]{8})-([0-9a-f]{4})-7/.exec(eventId);
  return match ? Number.parseInt(`${match[1]}${match[2]}`, 16) : undefined;
}
