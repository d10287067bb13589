/**
 * How `listen` applies a delivery profile to the feed's entries (no sockets: the forwarding is
 * recorded): the default forwards each entry once, in order; outOfOrderRate holds an entry back
 * until the next one was answered; duplicateRate forwards a delivered entry again; copies and
 * the schedule are handed to the forwarding.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_DELIVERY_PROFILE, type DeliveryProfile } from '@session-resume-api/runtime/delivery/delivery-rules';
import { createProfileScheduler, type ForwardHow } from '../../cli/listen/apply-profile.js';
import type { SandboxEvent } from '../../client/sandbox/index.js';

const entry = (sequence: number): SandboxEvent => ({
  sequence,
  webhookId: `msg_${sequence}`,
  dedupeKey: '0'.repeat(64),
  payload: { event: 'session.resumed', session: { id: `s${sequence}` }, timestamp: '2026-11-25T10:00:00.000Z' },
});

async function run(profile: Partial<DeliveryProfile>, count: number) {
  const forwarded: { sequence: number; how: ForwardHow }[] = [];
  const tasks: Promise<unknown>[] = [];
  const lines: string[] = [];
  const scheduler = createProfileScheduler({
    profile: () => ({ ...DEFAULT_DELIVERY_PROFILE, ...profile }),
    forward: async (e, how) => {
      forwarded.push({ sequence: e.sequence, how });
      how.onFirstAnswer();
      return 'delivered';
    },
    track: (task) => tasks.push(task),
    signal: new AbortController().signal,
    print: (line) => lines.push(line),
    random: () => 0.5,
  });
  for (let n = 1; n <= count; n++) scheduler.accept(entry(n));
  // Tasks start more tasks (the held entry, the duplicate): wait until none is added.
  for (let seen = -1; seen !== tasks.length;) {
    seen = tasks.length;
    await Promise.all(tasks);
  }
  scheduler.stop();
  return { forwarded, lines };
}

describe('listen delivery profile', () => {
  it('the default forwards each entry once, in order, one copy', async () => {
    const { forwarded, lines } = await run({}, 3);
    expect(forwarded.map((f) => f.sequence)).toEqual([1, 2, 3]);
    expect(forwarded.every((f) => f.how.copies === 1 && !f.how.duplicate && f.how.schedule === undefined)).toBe(true);
    expect(lines).toEqual([]);
  });

  it('outOfOrderRate 1: each pair swapped, the earlier entry after the later one; an odd last entry reported when stopped', async () => {
    const { forwarded, lines } = await run({ outOfOrderRate: 1 }, 5);
    const order = forwarded.map((f) => f.sequence);
    expect([...order].sort()).toEqual([1, 2, 3, 4]);
    expect(order.indexOf(2)).toBeLessThan(order.indexOf(1));
    expect(order.indexOf(4)).toBeLessThan(order.indexOf(3));
    expect(forwarded.find((f) => f.sequence === 1)?.how.note).toBe('(out of order: after event 2)');
    expect(lines.at(-1)).toBe('event 5 (msg_5) was held back (out of order) when stopped: not delivered');
  });

  it('duplicateRate 1: every delivered entry forwarded a second time, marked; copies and schedule handed on', async () => {
    const { forwarded } = await run({ duplicateRate: 1, concurrentCopies: 3, retryScheduleMs: [0, 100] }, 2);
    expect(forwarded.map((f) => [f.sequence, f.how.duplicate])).toEqual([
      [1, false],
      [2, false],
      [1, true],
      [2, true],
    ]);
    expect(forwarded.every((f) => f.how.copies === 3 && f.how.schedule?.join() === '0,100')).toBe(true);
    expect(forwarded[2]?.how.note).toBe('(duplicate)');
  });

  it('a rate of 0.5 with a draw of 0.5 does nothing: a rate is the share of draws below it', async () => {
    const { forwarded } = await run({ duplicateRate: 0.5, outOfOrderRate: 0.5 }, 2);
    expect(forwarded.map((f) => f.sequence)).toEqual([1, 2]);
  });
});
