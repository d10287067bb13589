/**
 * The Redis store's ack path and its recovery: an event recorded by an instance that died
 * between its 200 and the hand-over to BullMQ (simulated by running the record script alone)
 * is found by another instance's inbox sweep and processed once; after processing, nothing of
 * it stays in Redis but its dedupe record (marked processed). A hand-over takes batches out of
 * the inbox once `addBulk` made their jobs, before any processing; a job added again for a
 * batch already processed runs nothing. Jobs are looked up through BullMQ's `Queue` API.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_DEDUPE_WINDOW_SECONDS } from '../../client/webhooks/receiver-options.js';
import { createWebhookReceiver, dedupeKey, type SessionEvent } from '../../client/webhooks/index.js';
import { createRedisEventStore } from '../../client/webhooks/redis/index.js';
import { createRecordCall } from '../../client/webhooks/redis/record-call.js';
import { BUCKETS_PER_WINDOW, bucketKey, storeKeys, tripleField, withStoreCommands, type StoreKeys } from '../../client/webhooks/redis/store-scripts.js';
import { deletePrefix, uniquePrefix } from '../helpers/redis-keys.js';
import { waitFor } from '../helpers/wait-for.js';

const redisUrl = inject('redisUrl');
const prefix = uniquePrefix('recv-inbox');
afterAll(() => deletePrefix(redisUrl, prefix));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The store's queue, read through BullMQ's public API. */
const queueOf = (redis: Redis, keys: StoreKeys) => new Queue('webhook-events', { connection: redis, prefix: keys.bullPrefix });
/** The receiver's default window: one hour in buckets of five minutes. */
// The receiver's own window and bucket: a recording made here must land where its worker looks.
const WINDOW_MS = DEFAULT_DEDUPE_WINDOW_SECONDS * 1000;
const BUCKET_MS = WINDOW_MS / BUCKETS_PER_WINDOW;

describe('redis store inbox', () => {
  it('an event acknowledged by a dead instance before its hand-over is processed once by another', async () => {
    const keys = storeKeys(prefix, 'webhook-events');
    const redis = withStoreCommands(new Redis(redisUrl)) as Redis & ReturnType<typeof withStoreCommands>;
    const queue = queueOf(redis, keys);
    const event: SessionEvent = { event: 'session.resumed', session: { id: `sess_orphan_${Date.now()}` }, timestamp: new Date().toISOString() };
    const key = dedupeKey(event);
    const item = { id: 'eorphan1', key, event };
    // What a first delivery writes in its one round trip, with no hand-over after it: a batch of one.
    const call = createRecordCall(keys)({
      fromMs: Date.now() - 1000,
      deadlineMs: Date.now() + 1000,
      windowMs: WINDOW_MS,
      bucketMs: BUCKET_MS,
      batchId: 'borphan1',
      events: [tripleField(key), '', 'eorphan1', JSON.stringify(item)],
    });
    const [status, at, id, duplicate] = await redis.sraRecord(...(call as [number, ...string[]]));
    expect([status, id, duplicate]).toEqual([0, 'eorphan1', 0]);
    expect(JSON.parse((await redis.hget(keys.inbox, 'borphan1'))!)).toEqual({ receivedAt: at, events: [item] });

    const seen: string[] = [];
    const receiver = createWebhookReceiver({
      store: createRedisEventStore({ url: redisUrl, prefix, stalledIntervalMs: 200 }),
      onEvent: (e, ctx) => void seen.push(`${e.session?.id} ${ctx.id}`),
    });
    await waitFor(() => seen.length === 1, { what: 'the swept event processed' });
    expect(seen).toEqual([`${event.session?.id} eorphan1`]);
    // A redelivery is a duplicate of that recording; several sweeps later it still ran once.
    expect((await receiver.receive(JSON.stringify(event))).body).toMatchObject({ duplicate: true, id: 'eorphan1' });
    await sleep(700);
    expect(seen).toHaveLength(1);
    await waitFor(async () => (await queue.getJob('borphan1')) === undefined, { what: 'the completed job removed' });
    expect(await redis.hlen(keys.inbox)).toBe(0);
    expect(await redis.zcard(keys.inboxAt)).toBe(0);
    expect(await redis.hget(bucketKey(keys, Number(at), BUCKET_MS), tripleField(key))).toBe('eorphan1+');

    // A late hand-over (an instance paused after its recording) queues the processed event again: it runs nothing.
    await queue.addBulk([{ name: 'session-events', data: { receivedAt: at, events: [item] }, opts: { jobId: 'borphan1', removeOnComplete: true } }]);
    await waitFor(async () => (await queue.getJob('borphan1')) === undefined, { what: 'the repeated job completed' });
    await sleep(300);
    expect(seen).toHaveLength(1);
    await receiver.close();
    await queue.close();
    redis.disconnect();
  });

  it('a hand-over empties the inbox as it queues the jobs; a worker elsewhere processes each once', async () => {
    const handPrefix = `${prefix}-hand`;
    const keys = storeKeys(handPrefix, 'webhook-events');
    const redis = new Redis(redisUrl);
    const queue = queueOf(redis, keys);
    const receiveOnly = createWebhookReceiver({
      store: createRedisEventStore({ url: redisUrl, prefix: handPrefix, process: false }),
      onEvent: () => undefined,
    });
    const events = Array.from({ length: 30 }, (_, i): SessionEvent => ({
      event: 'session.resumed',
      session: { id: `sess_hand_${Date.now()}_${i}` },
      timestamp: new Date().toISOString(),
    }));
    const answers = await Promise.all(events.map((e) => receiveOnly.receive(JSON.stringify(e))));
    expect(answers.every((a) => a.status === 200 && !(a.body as { duplicate: boolean }).duplicate)).toBe(true);
    const ids = answers.map((a) => (a.body as { id: string }).id);
    // No worker anywhere yet: every event is in a waiting job (the events of one turn share one) and none is left in the inbox.
    await waitFor(async () => (await redis.hlen(keys.inbox)) === 0, { what: 'the inbox emptied by the hand-over' });
    expect(await redis.zcard(keys.inboxAt)).toBe(0);
    const waiting = await queue.getWaiting();
    expect(waiting.length).toBeLessThan(ids.length);
    expect(waiting.flatMap((job) => (job.data as { events: Array<{ id: string }> }).events.map((e) => e.id)).sort()).toEqual([...ids].sort());

    const seen: string[] = [];
    const worker = createWebhookReceiver({
      store: createRedisEventStore({ url: redisUrl, prefix: handPrefix, stalledIntervalMs: 200 }),
      onEvent: (_e, ctx) => void seen.push(ctx.id),
    });
    await waitFor(() => seen.length === ids.length, { what: 'every queued event processed' });
    await sleep(700); // several sweeps: none queues a processed event again
    expect([...seen].sort()).toEqual([...ids].sort());
    await Promise.all([receiveOnly.close(), worker.close(), queue.close()]);
    await deletePrefix(redisUrl, handPrefix);
    redis.disconnect();
  });
});
