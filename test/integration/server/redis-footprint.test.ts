/**
 * What a request leaves in Redis (docs/bounds.md): a keyed resume leaves its recorded answer
 * and its key claim, ≤ 800 B together, for IDEMPOTENCY_TTL; a keyed 404 leaves only the
 * claim; an unkeyed 404 leaves nothing, even with webhooks on. Own prefix on the shared Redis.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { waitUntilConnected } from '../../../server/redis/create-redis-connection.js';
import { createRedisClient } from '../../../server/redis/redis-client.js';
import { createRedisSessionStore } from '../../../server/sessions/redis-session-store.js';
import type { IdempotentAnswers, SessionStore } from '../../../server/sessions/session-store.js';
import { errorBody } from '../../../server/errors/error-answer.js';
import { deletePrefix, uniquePrefix } from '../../helpers/redis-keys.js';
import { waitFor } from '../../helpers/wait-for.js';

const prefix = `${uniquePrefix('footprint')}:`;
const TTL = 3600;
const answers: IdempotentAnswers = {
  resumed: { status: 200, body: { success: true, message: 'Session resumed.' } },
  not_found: { status: 404, body: errorBody('not_found', 'Session not found.') },
  not_paused: { status: 409, body: errorBody('not_paused', 'Session is not paused (not_paused).') },
};
let client: Redis;
let store: SessionStore;
beforeAll(async () => {
  client = createRedisClient(inject('redisUrl'));
  await waitUntilConnected(client);
  store = createRedisSessionStore({ client, keyPrefix: prefix, events: true, idempotencyTtlSeconds: TTL });
});
afterAll(async () => {
  await deletePrefix(inject('redisUrl'), prefix);
  await client.quit();
});

/** Keys under the prefix, except the sessions themselves. */
async function leftOver(): Promise<string[]> {
  const keys = await client.keys(`${prefix}*`);
  const intents = await client.zcard(`${prefix}{outbox}:intents`);
  return [...keys.filter((k) => !k.startsWith(`${prefix}session:`) && !k.endsWith('{outbox}:intents')), ...Array(intents).fill('intent')];
}
const usage = async (keys: string[]) => {
  let sum = 0;
  for (const key of keys) sum += Number(await client.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
  return sum;
};
const keyed = () => ({ idempotency: { scope: 'k_0123456789abcdef', key: randomUUID(), answers } });

describe('Redis footprint per request', () => {
  it('an unkeyed 404 leaves nothing, not even its intent', async () => {
    for (let i = 0; i < 20; i++) expect((await store.resume(`missing_${i}`)).kind).toBe('not_found');
    await waitFor(async () => (await leftOver()).length === 0);
  });

  it('a keyed 404 leaves only its claim; a keyed 409 its answer and claim, ≤ 800 B, for IDEMPOTENCY_TTL', async () => {
    expect((await store.resume('missing_keyed', keyed())).kind).toBe('not_found');
    await waitFor(async () => (await leftOver()).length === 1);
    const [claim] = await leftOver();
    expect(claim).toContain('idem-claim:');
    await client.unlink(claim!);

    await store.seed([{ id: 'running_1', status: 'running' }]);
    expect((await store.resume('running_1', keyed())).kind).toBe('not_paused');
    const keys = (await leftOver()).filter((k) => k.includes(':idem'));
    expect(keys).toHaveLength(2);
    expect(await usage(keys)).toBeLessThanOrEqual(800);
    for (const key of keys) {
      const ttl = await client.ttl(key);
      expect(ttl).toBeGreaterThan(TTL - 10);
      expect(ttl).toBeLessThanOrEqual(TTL);
    }
  });
});
