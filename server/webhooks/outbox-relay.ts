/**
 * The transactional outbox's relay on Redis: a resume writes an intent first and its script the event
 * (server/sessions/redis-resume.ts); every instance's relay queues the event of any intent older than
 * `minAgeMs`, so a SIGKILL between script and enqueue loses nothing. An intent without its event (the
 * script may still run late) is looked at again at growing intervals, then dropped after `INTENT_GIVE_UP_MS`.
 */
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { intentCreatedAt, type RedisKeys } from '../redis/redis-keys.js';
import type { Tracing } from '@session-resume-api/runtime/tracing';
import type { WebhookMessage } from '../core/webhook-message.js';
import { relaySpan } from './delivery-spans.js';

/** What the relay needs. */
export interface RelayDeps {
  client: Redis | Cluster;
  keys: RedisKeys;
  /** Hands events to the queue (one round trip) and settles their intents and event keys. */
  publish: (events: WebhookMessage[]) => Promise<unknown>;
  logger: Logger;
  /** ms. */
  minAgeMs: number;
  /** A producer span per event handed over, child of its trace. */
  tracing?: Tracing | undefined;
}

/** Intents whose script wrote no event are dropped after this long (the script can no longer run late). */
export const INTENT_GIVE_UP_MS = 60 * 60 * 1000;
/** Shortest and longest wait before an intent without its event is looked at again, in ms. */
const RECHECK_MS = { min: 5000, max: 300_000 };
/** Intents read per batch; a pass goes on while batches come back full (at most 20 batches). */
const RELAY_BATCH = 500;

/** One pass over the due intents: hand over the events that exist, put off or drop the rest. */
export async function relayPass(deps: RelayDeps): Promise<number> {
  let added = 0;
  for (let batch = 0; batch < 20; batch++) {
    const result = await relayBatch(deps);
    added += result.added;
    // Every intent read is settled or put off, so the next batch reads new ones.
    if (result.read < RELAY_BATCH) break;
  }
  return added;
}

async function relayBatch({ client, keys, publish, logger, minAgeMs, tracing }: RelayDeps): Promise<{ read: number; added: number }> {
  const now = Date.now();
  const members = await client.zrangebyscore(keys.intents, '-inf', now - minAgeMs, 'LIMIT', 0, RELAY_BATCH);
  const intents = members.map((member) => {
    const [sessionId, eventId] = JSON.parse(member) as [string, string];
    return { member, sessionId, eventId };
  });
  // Sent together (one key each, so also on a cluster): one round trip for the batch.
  const stored = await Promise.all(intents.map((intent) => client.get(keys.event(intent.sessionId, intent.eventId))));
  const dropped: string[] = [];
  const later: (string | number)[] = [];
  const found: WebhookMessage[] = [];
  for (const [index, intent] of intents.entries()) {
    const value = stored[index] ?? null;
    // '-': a marker an earlier version wrote for a script that flipped nothing.
    if (value === '-') {
      dropped.push(intent.member);
      continue;
    }
    if (value !== null) {
      found.push(JSON.parse(value) as WebhookMessage);
      continue;
    }
    // No event: the script has not run (yet). Look again later, or give up.
    const age = now - (intentCreatedAt(intent.eventId) ?? now - INTENT_GIVE_UP_MS);
    if (age >= INTENT_GIVE_UP_MS) dropped.push(intent.member);
    else later.push(now + Math.min(Math.max(age, RECHECK_MS.min), RECHECK_MS.max), intent.member);
  }
  await handOver(found, publish, tracing);
  for (const event of found) logger.info({ webhookId: event.id }, 'relay handed an event to the delivery queue');
  if (dropped.length > 0) await client.zrem(keys.intents, ...dropped);
  // XX: an intent settled meanwhile (its enqueue removed it) is not written back.
  if (later.length > 0) await client.zadd(keys.intents, 'XX', ...later);
  return { read: intents.length, added: found.length };
}

/** Publishes the events, each inside its relay span when tracing. */
async function handOver(found: WebhookMessage[], publish: RelayDeps['publish'], tracing: Tracing | undefined): Promise<void> {
  if (!tracing || found.length === 0) return void (await publish(found));
  const spans = found.map((event) => relaySpan(tracing, event));
  try {
    await publish(found);
  } catch (err) {
    for (const span of spans) span.end(err instanceof Error ? err.name : 'publish_failed');
    throw err;
  }
  for (const span of spans) span.end();
}

/** Runs `pass` every `intervalMs` (unref'd, never overlapping); a run of failures is logged once, and its end once. */
export function startTimer(pass: () => Promise<unknown>, intervalMs: number, logger: Logger): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failures = 0;
  const tick = async () => {
    try {
      await pass();
      if (failures > 0) logger.info({ failedPasses: failures }, 'outbox relay passes succeed again');
      failures = 0;
    } catch (err) {
      if (failures++ === 0)
        logger.warn({ err: (err as Error).message }, 'outbox relay pass failed; retrying every pass, further failures not logged until one succeeds');
    }
    if (!stopped) timer = setTimeout(() => void tick(), intervalMs).unref();
  };
  timer = setTimeout(() => void tick(), intervalMs).unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
