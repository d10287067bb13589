/**
 * The Redis store records the deliveries of one event-loop turn with one script call: each
 * caller gets its own outcome in order, a failed call fails every caller of its batch (and
 * only those), and a full batch goes at once. With `maxInFlight`, items added while that many
 * calls are under way go together once one settles, at most `maxItems` a call.
 */
import { describe, expect, it } from 'vitest';
import { createRecordBatch } from '../../client/webhooks/redis/record-batch.js';

/** A few event-loop turns: a settled call's follow-up (scheduled with setImmediate) has run. */
const turns = async () => {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
};

describe('record batch', () => {
  it('sends the items added in one turn together and gives each caller its outcome', async () => {
    const calls: number[][] = [];
    const batch = createRecordBatch<number, string>({ maxItems: 100, send: async (items) => (calls.push([...items]), items.map((n) => `out${n}`)) });
    const outcomes = await Promise.all([1, 2, 3].map((n) => batch.add(n)));
    expect(outcomes).toEqual(['out1', 'out2', 'out3']);
    expect(await batch.add(4)).toBe('out4');
    expect(calls).toEqual([[1, 2, 3], [4]]);
  });

  it('sends a full batch at once, the rest in the next call', async () => {
    const calls: number[][] = [];
    const batch = createRecordBatch<number, number>({ maxItems: 2, send: async (items) => (calls.push([...items]), [...items]) });
    const added = [1, 2, 3].map((n) => batch.add(n));
    expect(calls).toEqual([[1, 2]]);
    expect(await Promise.all(added)).toEqual([1, 2, 3]);
    expect(calls).toEqual([[1, 2], [3]]);
  });

  it('rejects every caller of a failed call, with its error, whether it throws or rejects', async () => {
    let fail: 'throw' | 'reject' | undefined = 'throw';
    const batch = createRecordBatch<number, number>({
      maxItems: 10,
      send: (items) => {
        if (fail === 'throw') throw new Error('thrown');
        if (fail === 'reject') return Promise.reject(new Error('rejected'));
        return Promise.resolve([...items]);
      },
    });
    const thrown = await Promise.allSettled([batch.add(1), batch.add(2)]);
    expect(thrown.map((r) => r.status === 'rejected' && (r.reason as Error).message)).toEqual(['thrown', 'thrown']);
    fail = 'reject';
    await expect(batch.add(3)).rejects.toThrow('rejected');
    fail = undefined;
    expect(await batch.add(4)).toBe(4);
  });

  it('with maxInFlight 1, what arrives during a call goes in the next one, at most maxItems a call', async () => {
    const calls: number[][] = [];
    const answers: Array<() => void> = [];
    const batch = createRecordBatch<number, number>({
      maxItems: 3,
      maxInFlight: 1,
      send: (items) => (calls.push([...items]), new Promise((resolve) => answers.push(() => resolve([...items])))),
    });
    const first = batch.add(1);
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual([[1]]);
    const later = [2, 3, 4, 5].map((n) => batch.add(n));
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual([[1]]);
    answers.shift()!();
    expect(await first).toBe(1);
    await turns();
    expect(calls).toEqual([[1], [2, 3, 4]]);
    answers.shift()!();
    await turns();
    expect(calls).toEqual([[1], [2, 3, 4], [5]]);
    answers.shift()!();
    expect(await Promise.all(later)).toEqual([2, 3, 4, 5]);
  });

  it('a failed call lets the next one go', async () => {
    let fail = true;
    const batch = createRecordBatch<number, number>({
      maxItems: 10,
      maxInFlight: 1,
      send: async (items) => (fail ? Promise.reject(new Error('down')) : [...items]),
    });
    const failed = batch.add(1);
    const next = batch.add(2);
    await expect(failed).rejects.toThrow('down');
    await expect(next).rejects.toThrow('down');
    fail = false;
    expect(await batch.add(3)).toBe(3);
  });
});
