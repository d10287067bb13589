/**
 * The Redis store's ack path and its recovery: an event recorded by an instance that died
 * between its 200 and the hand-over to BullMQ (simulated by running the record script alone)
 * is found by another instance's inbox sweep and processed once; after processing, nothing of
 * it stays in Redis but its dedupe record.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createWebhookReceiver, dedupeKey, type SessionEvent } from '../../client/webhooks/index.js';
import { createRedisEventStore } from '../../client/webhooks/redis/index.js';
import { storeKeys, tripleField, withStoreCommands } from '../../client/webhooks/redis/store-scripts.js';
import { deletePrefix, uniquePrefix } from '../helpers/redis-keys.js';
import { waitFor } from '../helpers/wait-for.js';

const redisUrl = inject('redisUrl');
const prefix = uniquePrefix('recv-inbox');
afterAll(() => deletePrefix(redisUrl, prefix));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('redis store inbox', () => {
  it('an event acknowledged by a dead instance before its hand-over is processed once by another', async () => {
    const keys = storeKeys(prefix, 'webhook-events');
    const redis = withStoreCommands(new Redis(redisUrl));
    const event: SessionEvent = { event: 'session.resumed', session: { id: `sess_orphan_${Date.now()}` }, timestamp: new Date().toISOString() };
    const key = dedupeKey(event);
    const data = JSON.stringify({ key, event, receivedAt: Date.now() - 5_000 });
    // What a first delivery writes in its one round trip, with no hand-over after it.
    const [id, duplicate] = await redis.sraRecord(keys.dedupe, keys.inbox, keys.inboxAt, keys.failed, tripleField(key), '', 'eorphan1', Date.now() - 5_000, 3_600_000, 300_000, data);
    expect([id, duplicate]).toEqual(['eorphan1', 0]);
    expect(await redis.hexists(keys.inbox, 'eorphan1')).toBe(1);

    const seen: string[] = [];
    const receiver = createWebhookReceiver({
      store: createRedisEventStore({ url: redisUrl, prefix, stalledIntervalMs: 200 }),
      onEvent: (e, ctx) => void seen.push(`${e.session.id} ${ctx.id}`),
    });
    await waitFor(() => seen.length === 1, { what: 'the swept event processed' });
    expect(seen).toEqual([`${event.session.id} eorphan1`]);
    // A redelivery is a duplicate of that recording; several sweeps later it still ran once.
    expect((await receiver.receive(JSON.stringify(event))).body).toMatchObject({ duplicate: true, id: 'eorphan1' });
    await sleep(700);
    expect(seen).toHaveLength(1);
    await waitFor(async () => (await redis.exists(`${keys.jobKey}eorphan1`)) === 0, { what: 'the completed job removed' });
    expect(await redis.hlen(keys.inbox)).toBe(0);
    expect(await redis.zcard(keys.inboxAt)).toBe(0);
    await receiver.close();
    redis.disconnect();
  });
});
