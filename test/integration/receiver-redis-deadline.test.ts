/**
 * The record script's deadline and its buckets, on the shared Redis under a key prefix of its
 * own: a call that runs after its deadline changes nothing and says so; a call whose caller
 * computed its keys from an older time still finds a record another instance made later, since
 * the script picks the buckets by Redis's clock.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRecordCall } from '../../client/webhooks/redis/record-call.js';
import { RECORD_STATUS, storeKeys, tripleField, withStoreCommands } from '../../client/webhooks/redis/store-scripts.js';
import { deletePrefix, uniquePrefix } from '../helpers/redis-keys.js';

const redisUrl = inject('redisUrl');
const prefix = uniquePrefix('deadline');
const redis = withStoreCommands(new Redis(redisUrl)) as Redis & ReturnType<typeof withStoreCommands>;
afterAll(async () => {
  await deletePrefix(redisUrl, prefix);
  redis.disconnect();
});

const keys = storeKeys(prefix, 'webhook-events');
const recordCall = createRecordCall(keys);
const WINDOW_MS = 12_000;
const BUCKET_MS = 1000;
const item = (id: string, key: string) => [tripleField(key), '', id, JSON.stringify({ id, key, event: {} })];
const record = (fromMs: number, deadlineMs: number, batchId: string, events: string[]) =>
  redis.sraRecord(...(recordCall({ fromMs, deadlineMs, windowMs: WINDOW_MS, bucketMs: BUCKET_MS, batchId, events }) as [number, ...string[]]));

describe('record script deadline', () => {
  it('a call that reaches Redis after its deadline records nothing and answers late', async () => {
    const now = Date.now();
    const [status] = await record(now - 5000, now - 3000, 'blate', item('elate', 'k-late'));
    expect(status).toBe(RECORD_STATUS.late);
    expect(await redis.hlen(keys.inbox)).toBe(0);
    // The same event recorded in time afterwards is a first delivery: the late call left no dedupe record.
    const [ok, , id, duplicate] = await record(Date.now() - 100, Date.now() + 2000, 'bok', item('eok', 'k-late'));
    expect([ok, id, duplicate]).toEqual([RECORD_STATUS.recorded, 'eok', 0]);
  });

  it('a call computed from an older time finds a record made after that time, in a newer bucket', async () => {
    const sent = Date.now() - 4000;
    // Another instance records the event now.
    await record(Date.now() - 50, Date.now() + 2000, 'bnew', item('enew', 'k-window'));
    // A call whose caller computed its keys 4 s ago (several buckets back), still within its deadline.
    const [status, , id, duplicate] = await record(sent, Date.now() + 2000, 'bold', item('eold', 'k-window'));
    expect([status, id, duplicate]).toEqual([RECORD_STATUS.recorded, 'enew', 1]);
  });

  it("a call whose buckets cannot cover Redis's clock records nothing", async () => {
    const [status] = await record(Date.now() + 60_000, Date.now() + 62_000, 'bclock', item('eclock', 'k-clock'));
    expect(status).toBe(RECORD_STATUS.clock);
    expect(await redis.hexists(keys.inbox, 'bclock')).toBe(0);
  });
});
