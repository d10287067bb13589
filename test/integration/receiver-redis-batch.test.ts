/**
 * The Redis store's batches: the first deliveries recorded in one event-loop turn are one
 * BullMQ job, and each of its events keeps its own guarantees. One failing event: the others
 * run once, it is retried with the batch and then dead-lettered on its own. Copies of one event
 * within a turn and across batches run once. A batch whose hand-over crashed between `addBulk`
 * and the inbox removal (left in the inbox with its job queued) runs once, whether the sweep
 * finds it before or after the job completed. Jobs are read through BullMQ's `Queue` API.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createWebhookReceiver, dedupeKey, type SessionEvent, type WebhookReceiverBaseOptions } from '../../client/webhooks/index.js';
import { createRedisEventStore, type RedisEventStoreBaseOptions } from '../../client/webhooks/redis/index.js';
import { createRecordCall } from '../../client/webhooks/redis/record-call.js';
import { DEFAULT_DEDUPE_WINDOW_SECONDS } from '../../client/webhooks/receiver-options.js';
import { BUCKETS_PER_WINDOW, storeKeys, tripleField, withStoreCommands } from '../../client/webhooks/redis/store-scripts.js';
import { deletePrefix, uniquePrefix } from '../helpers/redis-keys.js';
import { waitFor } from '../helpers/wait-for.js';

/** The receiver's own window: a recording made here must land in the bucket its worker reads. */
const WINDOW_MS = DEFAULT_DEDUPE_WINDOW_SECONDS * 1000;

const redisUrl = inject('redisUrl');
const prefixes: string[] = [];
afterAll(() => Promise.all(prefixes.map((p) => deletePrefix(redisUrl, p))));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const anEvent = (label: string): SessionEvent => ({
  event: 'session.resumed',
  session: { id: `sess_${label}_${Math.random().toString(36).slice(2)}` },
  timestamp: new Date().toISOString(),
});
const body = (e: SessionEvent) => JSON.stringify(e);
type Batch = { receivedAt: number; events: Array<{ id: string; key: string; event: SessionEvent }> };

function setup(label: string) {
  const prefix = uniquePrefix(label);
  prefixes.push(prefix);
  const keys = storeKeys(prefix, 'webhook-events');
  const redis = new Redis(redisUrl);
  const queue = new Queue<Batch>('webhook-events', { connection: redis, prefix: keys.bullPrefix });
  const receiver = (store: Omit<RedisEventStoreBaseOptions, 'prefix'>, options: WebhookReceiverBaseOptions) =>
    createWebhookReceiver({ store: createRedisEventStore({ url: redisUrl, prefix, ...store }), ...options });
  const close = async () => {
    await queue.close();
    redis.disconnect();
  };
  return { prefix, keys, redis, queue, receiver, close };
}

describe('redis store batches', () => {
  it('one failing event of a batch: the others run once, it is retried with the batch, then dead-lettered on its own', async () => {
    const { queue, receiver, close } = setup('batch-fail');
    const events = Array.from({ length: 5 }, (_, i) => anEvent(`b${i}`));
    const bad = events[2]!.session.id;
    // Recorded in one turn by a receive-only instance: one job for the five (with its attempts and backoff).
    const retries = { maxAttempts: 3, retryDelayMs: 20 };
    const front = receiver({ process: false }, { ...retries, onEvent: () => undefined });
    const answers = await Promise.all(events.map((e) => front.receive(body(e))));
    expect(answers.every((a) => a.status === 200 && !(a.body as { duplicate: boolean }).duplicate)).toBe(true);
    await waitFor(async () => (await queue.getWaitingCount()) === 1, { what: 'one job for the batch' });
    expect((await queue.getWaiting())[0]!.data.events.map((e) => e.event.session.id)).toEqual(events.map((e) => e.session.id));

    const runs: Array<[string, number]> = [];
    const reported: Array<[string, boolean]> = [];
    let failing = true;
    const worker = receiver(
      { stalledIntervalMs: 200 },
      {
        ...retries,
        onEvent: (e, ctx) => {
          runs.push([e.session!.id, ctx.attempt]);
          if (e.session?.id === bad && failing) throw new Error('handler down');
        },
        onError: (_error, ctx) => void reported.push([ctx.event.session!.id, ctx.final]),
      },
    );
    await waitFor(async () => (await worker.deadLetters()).length === 1, { what: 'the failing event dead-lettered' });
    await sleep(300);
    const ran = (id: string) => runs.filter(([r]) => r === id).map(([, attempt]) => attempt);
    for (const e of events) expect(ran(e.session.id), e.session.id).toEqual(e.session.id === bad ? [1, 2, 3] : [1]);
    expect(reported).toEqual([
      [bad, false],
      [bad, false],
      [bad, true],
    ]);
    const [letter] = await worker.deadLetters();
    expect(letter).toMatchObject({
      id: (answers[2]!.body as { id: string }).id,
      key: dedupeKey(events[2]!),
      event: events[2],
      attempts: 3,
      error: 'handler down',
    });
    // The batch's job completed once its events were done or dead-lettered.
    expect(await queue.getJobCounts('waiting', 'active', 'delayed', 'failed')).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });

    // A retry runs the dead letter alone, with fresh attempts.
    failing = false;
    expect(await worker.retryDeadLetter(letter!.id)).toBe(true);
    expect(await worker.retryDeadLetter(letter!.id)).toBe(false);
    await waitFor(() => ran(bad).length === 4, { what: 'the retried event run' });
    await sleep(300);
    expect(ran(bad)).toEqual([1, 2, 3, 1]);
    expect(runs).toHaveLength(8);
    expect(await worker.deadLetters()).toEqual([]);
    await Promise.all([front.close(), worker.close()]);
    await close();
  });

  it('copies of one event within a batch, across batches and across instances run once', async () => {
    const { receiver, close } = setup('batch-dup');
    const seen: string[] = [];
    const onEvent = (e: SessionEvent) => void seen.push(e.session!.id);
    const a = receiver({ concurrency: 4 }, { onEvent });
    const b = receiver({ concurrency: 4 }, { onEvent });
    const events = Array.from({ length: 20 }, (_, i) => anEvent(`d${i}`));
    // Each event three times in one turn on two instances, then once more in a later batch.
    const first = await Promise.all(events.flatMap((e) => [a.receive(body(e)), b.receive(body(e)), a.receive(body(e))]));
    expect(first.every((r) => r.status === 200)).toBe(true);
    expect(first.filter((r) => !(r.body as { duplicate: boolean }).duplicate)).toHaveLength(events.length);
    const again = await Promise.all(events.map((e) => b.receive(body(e))));
    expect(again.every((r) => (r.body as { duplicate: boolean }).duplicate)).toBe(true);
    await waitFor(() => seen.length === events.length, { what: 'every event run' });
    await sleep(500);
    expect([...seen].sort()).toEqual(events.map((e) => e.session.id).sort());
    await Promise.all([a.close(), b.close()]);
    await close();
  });

  it('a crash between addBulk and the inbox removal: the batch runs once, before or after its job completed', async () => {
    const { keys, redis, queue, receiver, close } = setup('batch-crash');
    const store = withStoreCommands(redis) as Redis & ReturnType<typeof withStoreCommands>;
    const items = Array.from({ length: 3 }, (_, i) => {
      const event = anEvent(`c${i}`);
      return { id: `ecrash${i}`, key: dedupeKey(event), event };
    });
    // What the dead instance did: its recording (one batch), then addBulk, and no inbox removal.
    const argv = items.flatMap((item) => [tripleField(item.key), '', item.id, JSON.stringify(item)]);
    const call = createRecordCall(keys)({
      fromMs: Date.now() - 1000,
      deadlineMs: Date.now() + 1000,
      windowMs: WINDOW_MS,
      bucketMs: WINDOW_MS / BUCKETS_PER_WINDOW,
      batchId: 'bcrash',
      events: argv,
    });
    const at = Number((await store.sraRecord(...(call as [number, ...string[]])))[1]);
    const batch: Batch = { receivedAt: at, events: items };
    await queue.addBulk([{ name: 'session-events', data: batch, opts: { jobId: 'bcrash', removeOnComplete: true } }]);
    expect(await redis.hexists(keys.inbox, 'bcrash')).toBe(1);

    const seen: string[] = [];
    const worker = receiver({ stalledIntervalMs: 100 }, { onEvent: (_e, ctx) => void seen.push(ctx.id) });
    await waitFor(() => seen.length === items.length, { what: 'the batch run' });
    // The job's end drops the batch from the inbox; sweeps meanwhile found its job still there.
    await waitFor(async () => (await redis.hlen(keys.inbox)) === 0, { what: 'the inbox emptied' });
    // The sweep finds the batch again after its job was completed and removed: it runs nothing.
    await redis.hset(keys.inbox, 'bcrash', JSON.stringify(batch));
    await redis.zadd(keys.inboxAt, at, 'bcrash');
    await waitFor(async () => (await redis.hlen(keys.inbox)) === 0, { what: 'the swept batch done' });
    await sleep(400);
    expect([...seen].sort()).toEqual(items.map((i) => i.id));
    await worker.close();
    await close();
  });
  it('a failed job whose events could not be dead-lettered at once is reconciled by a later sweep', async () => {
    const { keys, redis, queue, receiver, close } = setup('batch-reconcile');
    const events = Array.from({ length: 3 }, (_, i) => anEvent(`r${i}`));
    const front = receiver({ process: false }, { maxAttempts: 1, onEvent: () => undefined });
    await Promise.all(events.map((e) => front.receive(body(e))));
    await waitFor(async () => (await queue.getWaitingCount()) === 1, { what: 'one job for the batch' });
    // The dead set unreadable (a key of another type): the worker's step and its failed
    // listener both fail, so the job ends in BullMQ's failed set with its events nowhere else.
    await redis.set(keys.dead, 'not a sorted set');
    const seen: string[] = [];
    const worker = receiver({ stalledIntervalMs: 150 }, { maxAttempts: 1, onEvent: (e) => void seen.push(e.session!.id) });
    await waitFor(async () => (await queue.getFailedCount()) === 1, { what: 'the job failed' });
    await sleep(400);
    expect(await queue.getFailedCount()).toBe(1);
    // Redis readable again: a sweep dead-letters the batch's events and removes the job.
    await redis.del(keys.dead);
    await waitFor(async () => (await worker.deadLetters()).length === events.length, { what: 'the events dead-lettered by a sweep' });
    await waitFor(async () => (await queue.getFailedCount()) === 0, { what: 'the reconciled job removed' });
    expect((await worker.deadLetters()).map((l) => l.event.session!.id).sort()).toEqual(events.map((e) => e.session.id).sort());
    expect(seen).toEqual([]);
    await Promise.all([front.close(), worker.close()]);
    await close();
  });
});
