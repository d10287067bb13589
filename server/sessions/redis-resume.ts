/**
 * The Redis store's resume: the outbox intent and the Idempotency-Key claim in one round trip, then a
 * Lua script that flips the session, writes its event and records the key's answer.
 */
import type { Cluster, Redis } from 'ioredis';
import { intentMember, timeOrderedEventId, type RedisKeys } from '../redis/redis-keys.js';
import { PAUSED, RUNNING, type RecordedAnswer, type StoreResumeOptions, type ResumeTransition } from './session-store.js';
import { resumedEvent, type WebhookMessage } from '../core/webhook-message.js';
import { StoreUnavailableError } from '../errors/store-errors.js';

/** How long the outbox keeps an event written by a resume, in seconds (the relay needs seconds). */
export const EVENT_TTL_SECONDS = 24 * 60 * 60;

// KEYS: session, idempotency record, event. ARGV: paused, running, updatedAt, event JSON,
// event TTL, has key (1/0), key TTL, then the answers for resumed, not_found, not_paused.
// Redis runs a script without interleaving, so of concurrent resumes exactly one sees `paused`; a
// script run late behind a stalled Redis still records its answer for a keyed retry (a timeout is
// "unknown", never "not applied"). Only a flip writes the event key.
const RESUME_SCRIPT = `
-- The event key exists only if a copy of this very call already flipped the session (ioredis
-- re-sends a script after a reconnect): its answer is that flip.
if ARGV[4] ~= '' and redis.call('EXISTS', KEYS[3]) == 1 then return {'resumed', ''} end
local hasKey = ARGV[6] == '1'
if hasKey then
  local recorded = redis.call('GET', KEYS[2])
  if recorded then return {'replayed', recorded} end
end
local status = redis.call('HGET', KEYS[1], 'status')
local kind, answer
if not status then
  kind, answer = 'not_found', ARGV[9]
elseif status ~= ARGV[1] then
  kind, answer = 'not_paused', ARGV[10]
else
  kind, answer = 'resumed', ARGV[8]
  redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updatedAt', ARGV[3])
  if ARGV[4] ~= '' then redis.call('SET', KEYS[3], ARGV[4], 'EX', ARGV[5]) end
end
-- A missing session's 404 is not recorded under a key (x-decisions: idempotency-key): a keyed
-- retry after a reseed finds the session.
if hasKey and kind ~= 'not_found' then redis.call('SET', KEYS[2], answer, 'EX', ARGV[7]) end
return {kind, status or ''}
`;

// Binds an Idempotency-Key to the first session id it is used with; returns the bound id.
const CLAIM_SCRIPT = `
local bound = redis.call('GET', KEYS[1])
if bound then return bound end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return ARGV[1]
`;

/** What a resume needs from its store. */
export interface RedisResumeContext {
  client: Redis | Cluster;
  keys: RedisKeys;
  now: () => Date;
  /** Whether a resume writes its event for the outbox. */
  events: boolean;
  idempotencyTtlSeconds: number;
}

/** Runs one Redis call; any failure becomes `StoreUnavailableError` (503). */
export async function storeCall<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new StoreUnavailableError(`Redis ${what} failed: ${detail}`, { cause });
  }
}

/** Resumes one session on Redis: `SessionStore.resume`. */
export async function resumeOnRedis(context: RedisResumeContext, id: string, options: StoreResumeOptions = {}): Promise<ResumeTransition> {
  const { client, keys, events } = context;
  const updatedAt = context.now().toISOString();
  // The trace context only with an event to write (the store without a webhook writes none).
  const event = resumedEvent(timeOrderedEventId(), id, updatedAt, events ? options.trace : undefined);
  const intent = intentMember(id, event.id);
  // The script never ran (or will not) for this event id: drop its intent. On one Redis the ZREM
  // follows the ZADD on the same connection, so it also clears an intent whose ZADD timed out.
  const dropIntent = () => {
    // Failing here leaves the intent for the relay, which drops an intent without its event.
    if (events) void client.zrem(keys.intents, intent).catch(() => undefined);
  };
  const bound = await claimWithIntent(context, id, options, intent).catch((err: unknown) => {
    dropIntent();
    throw err;
  });
  if (bound !== id) {
    dropIntent();
    return { kind: 'key_reused' };
  }
  const [kind, value] = await storeCall('resume', () => runResumeScript(context, id, options, event, updatedAt));
  // Anything but `resumed`: no copy of this call flipped the session. A failed call keeps its
  // intent: the script may still run late, and the relay looks again.
  if (kind !== 'resumed') dropIntent();
  if (kind === 'replayed') return { kind: 'replayed', answer: JSON.parse(String(value)) as RecordedAnswer };
  if (kind === 'not_found') return { kind: 'not_found' };
  if (kind === 'not_paused') return { kind: 'not_paused', status: String(value) };
  return { kind: 'resumed', session: { id, status: RUNNING, updatedAt }, event };
}

/**
 * The intent goes before the script, so if this process dies after it, any instance's relay finds
 * the event (server/webhooks/outbox-relay.ts). The key claim is independent: same round trip.
 */
async function claimWithIntent(
  { client, keys, events, idempotencyTtlSeconds }: RedisResumeContext,
  id: string,
  { idempotency: idem }: StoreResumeOptions,
  intent: string,
) {
  const [bound] = await storeCall('resume', () =>
    Promise.all([
      idem ? client.eval(CLAIM_SCRIPT, 1, keys.idempotencyClaim(idem.scope, idem.key), id, idempotencyTtlSeconds) : id,
      events ? client.zadd(keys.intents, Date.now(), intent) : 0,
    ]),
  );
  return bound;
}

function runResumeScript(
  context: RedisResumeContext,
  id: string,
  { idempotency: idem }: StoreResumeOptions,
  event: WebhookMessage,
  updatedAt: string,
): Promise<string[]> {
  const { client, keys, events } = context;
  const answers = idem?.answers;
  const encode = (answer: RecordedAnswer) => JSON.stringify(answer);
  return client.eval(
    RESUME_SCRIPT,
    3,
    keys.session(id),
    idem ? keys.idempotency(id, idem.scope, idem.key) : keys.idempotency(id, '', ''),
    keys.event(id, event.id),
    PAUSED,
    RUNNING,
    updatedAt,
    events ? JSON.stringify(event) : '',
    EVENT_TTL_SECONDS,
    idem ? '1' : '0',
    context.idempotencyTtlSeconds,
    answers ? encode(answers.resumed) : '',
    answers ? encode(answers.not_found) : '',
    answers ? encode(answers.not_paused) : '',
  ) as Promise<string[]>;
}
