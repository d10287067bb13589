/**
 * The Redis store's record/deadline rule, socket-free: the deadline of a record call in Redis's
 * clock, how long the instance waits for it, and the dedupe buckets handed to the record script.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRecordCall, recordDeadline } from '../../client/webhooks/redis/record-call.js';
import { storeKeys } from '../../client/webhooks/redis/store-scripts.js';

const keys = storeKeys('p', 'q');
const bucketsOf = (call: Array<string | number>) => call.slice(4, Number(call[0]) + 1) as string[];
const argvOf = (call: Array<string | number>) => call.slice(Number(call[0]) + 1);

describe('recordDeadline', () => {
  it("states what is left of the oldest delivery's time in Redis's clock, and waits as long here", () => {
    expect(recordDeadline({ oldestAt: 1000, recordTimeoutMs: 2000, now: 1500, redisNow: 9000 })).toEqual({ fromMs: 9000, deadlineMs: 10_500, waitMs: 1500 });
  });

  it('sends nothing once the time is up (0 ms left included) or before Redis told its time', () => {
    expect(recordDeadline({ oldestAt: 1000, recordTimeoutMs: 2000, now: 3000, redisNow: 9000 })).toBeUndefined();
    expect(recordDeadline({ oldestAt: 1000, recordTimeoutMs: 2000, now: 2999, redisNow: 9000 })).toEqual({ fromMs: 9000, deadlineMs: 9001, waitMs: 1 });
    expect(recordDeadline({ oldestAt: 1000, recordTimeoutMs: 2000, now: 1000, redisNow: undefined })).toBeUndefined();
  });

  it('never lets Redis record after this instance stopped waiting (fast-check)', () => {
    const ms = fc.integer({ min: 0, max: 2 ** 40 });
    fc.assert(
      fc.property(
        ms,
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: -120_000, max: 120_000 }),
        fc.option(ms, { nil: undefined }),
        (oldestAt, recordTimeoutMs, elapsed, redisNow) => {
          const now = oldestAt + elapsed;
          const deadline = recordDeadline({ oldestAt, recordTimeoutMs, now, redisNow });
          const left = recordTimeoutMs - elapsed;
          if (left <= 0 || redisNow === undefined) {
            expect(deadline).toBeUndefined();
            return;
          }
          expect(deadline).toEqual({ fromMs: redisNow, deadlineMs: redisNow + left, waitMs: left });
        },
      ),
    );
  });
});

describe('createRecordCall', () => {
  it('lists the buckets from the oldest the window may read to the one the deadline falls in, then the script arguments', () => {
    const call = createRecordCall(keys)({
      fromMs: 10_000,
      deadlineMs: 12_000,
      windowMs: 3000,
      bucketMs: 1000,
      batchId: 'b1',
      skewMs: 0,
      events: ['t', '', 'e1', '{}'],
    });
    expect(call).toEqual([
      3 + 6,
      keys.inbox,
      keys.inboxAt,
      keys.dead,
      ...[7, 8, 9, 10, 11, 12].map((b) => `${keys.dedupe}:${b}`),
      12_000,
      7,
      1000,
      3000,
      'b1',
      0,
      't',
      '',
      'e1',
      '{}',
    ]);
  });

  it('rounds each end down to its bucket', () => {
    const call = createRecordCall(keys)({ fromMs: 10_999, deadlineMs: 11_999, windowMs: 3000, bucketMs: 1000, batchId: 'b', skewMs: 5, events: [] });
    expect(bucketsOf(call)).toEqual([7, 8, 9, 10, 11].map((b) => `${keys.dedupe}:${b}`));
    expect(argvOf(call)).toEqual([11_999, 7, 1000, 3000, 'b', 5]);
  });

  it('builds the list again when either end moves to another bucket (and keeps it within one)', () => {
    const recordCall = createRecordCall(keys);
    const input = { windowMs: 3000, bucketMs: 1000, batchId: 'b', skewMs: 0, events: [] };
    expect(bucketsOf(recordCall({ ...input, fromMs: 10_000, deadlineMs: 10_500 })).map((k) => k.split(':').at(-1))).toEqual(['7', '8', '9', '10']);
    expect(bucketsOf(recordCall({ ...input, fromMs: 10_100, deadlineMs: 10_900 })).map((k) => k.split(':').at(-1))).toEqual(['7', '8', '9', '10']);
    expect(bucketsOf(recordCall({ ...input, fromMs: 10_100, deadlineMs: 11_000 })).map((k) => k.split(':').at(-1))).toEqual(['7', '8', '9', '10', '11']);
    expect(bucketsOf(recordCall({ ...input, fromMs: 11_000, deadlineMs: 11_500 })).map((k) => k.split(':').at(-1))).toEqual(['8', '9', '10', '11']);
  });

  it('gives the script every bucket any time from fromMs - windowMs to deadlineMs falls in, consecutive and oldest first (fast-check)', () => {
    const recordCall = createRecordCall(keys);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 42 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 1, max: 50_000 }),
        fc.integer({ min: 1, max: 12 }),
        (fromMs, waitMs, bucketMs, perWindow) => {
          const windowMs = bucketMs * perWindow;
          const deadlineMs = fromMs + waitMs;
          const call = recordCall({ fromMs, deadlineMs, windowMs, bucketMs, batchId: 'b', events: [] });
          const buckets = bucketsOf(call).map((k) => Number(k.slice(`${keys.dedupe}:`.length)));
          expect(call.slice(1, 4)).toEqual([keys.inbox, keys.inboxAt, keys.dead]);
          expect(buckets[0]).toBe(Math.floor((fromMs - windowMs) / bucketMs));
          expect(buckets.at(-1)).toBe(Math.floor(deadlineMs / bucketMs));
          buckets.forEach((b, i) => expect(b).toBe(buckets[0]! + i));
          expect(argvOf(call)).toEqual([deadlineMs, buckets[0], bucketMs, windowMs, 'b', 0]);
        },
      ),
    );
  });
});
