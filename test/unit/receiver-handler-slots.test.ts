/**
 * The Redis store's handler slots: at most `limit` runs at a time across every caller, waiting
 * runs start in the order they asked, and a failing run frees its slot.
 */
import { describe, expect, it } from 'vitest';
import { createHandlerSlots } from '../../client/webhooks/redis/handler-slots.js';

describe('handler slots', () => {
  it.each([1, 2, 5])('limit %i: never more at once, first come first served, a failure frees its slot', async (limit) => {
    const slots = createHandlerSlots(limit);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const runs = Array.from({ length: 12 }, (_, i) =>
      slots.run(async () => {
        started.push(i);
        most = Math.max(most, ++running);
        await new Promise((r) => setImmediate(r));
        running--;
        if (i % 4 === 0) throw new Error(`run ${i}`);
        return i;
      }),
    );
    const results = await Promise.allSettled(runs);
    expect(most).toBe(limit);
    expect(started).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(3);
    expect(results[1]).toEqual({ status: 'fulfilled', value: 1 });
  });
});
