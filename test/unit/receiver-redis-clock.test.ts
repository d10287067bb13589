/** Redis's clock as the receiver store knows it: a lower bound, the tightest recent reading. */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRedisClock, timeMs } from '../../client/webhooks/redis/redis-clock.js';

afterEach(() => vi.useRealTimers());

describe('createRedisClock', () => {
  it('knows nothing before a reading, then Redis time plus what elapsed here', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = createRedisClock();
    expect(clock.now()).toBeUndefined();
    clock.observe(1_005_000);
    vi.advanceTimersByTime(200);
    expect(clock.now()).toBe(1_005_200);
  });

  it('keeps the largest lead of the last 10 s (a slow answer bounds Redis time loosely), and only then the latest', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = createRedisClock();
    clock.observe(1_005_000);
    vi.advanceTimersByTime(1000);
    clock.observe(1_001_000); // an answer that took 5 s to come back
    expect(clock.now()).toBe(1_006_000);
    vi.advanceTimersByTime(10_000);
    // The fast reading is older than 10 s now: the latest one counts alone.
    expect(clock.now()).toBe(1_011_000);
  });

  it('reset forgets earlier readings (a clock stepped)', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = createRedisClock();
    clock.observe(1_005_000);
    clock.reset(990_000);
    expect(clock.now()).toBe(990_000);
  });

  it('reads TIME replies as milliseconds', () => {
    expect(timeMs(['1700000000', '123456'])).toBe(1_700_000_000_123);
  });
});

describe('createRedisClock at the edge of its 10 s', () => {
  it('still uses a reading exactly 10 s old, and no older one', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = createRedisClock();
    clock.observe(1_005_000); // lead 5 s
    vi.advanceTimersByTime(1000);
    clock.observe(1_001_000); // lead 0
    vi.advanceTimersByTime(9000);
    expect(clock.now()).toBe(1_015_000);
    vi.advanceTimersByTime(1);
    expect(clock.now()).toBe(1_010_001);
  });

  it('a new reading keeps a reading exactly 10 s old', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = createRedisClock();
    clock.observe(1_005_000); // lead 5 s
    vi.advanceTimersByTime(10_000);
    clock.observe(1_010_000); // lead 0, exactly 10 s after the first
    expect(clock.now()).toBe(1_015_000);
  });

  it('a smaller lead never lowers the bound, a larger one raises it', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = createRedisClock();
    clock.observe(1_000_500);
    clock.observe(1_000_200);
    expect(clock.now()).toBe(1_000_500);
    clock.observe(1_000_900);
    expect(clock.now()).toBe(1_000_900);
  });

  it('reads TIME replies with microseconds rounded down to the millisecond', () => {
    expect(timeMs(['2', '999999'])).toBe(2999);
    expect(timeMs(['0', '1000'])).toBe(1);
  });
});

describe('createRedisClock when every reading is older than 10 s', () => {
  it('uses the latest reading, and a new reading after it again', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = createRedisClock();
    clock.observe(1_003_000); // lead 3 s
    vi.advanceTimersByTime(20_000);
    expect(clock.now()).toBe(1_023_000);
    clock.observe(1_020_500); // lead 500 ms
    expect(clock.now()).toBe(1_020_500);
  });

  it('keeps answering through many readings that fall out of the 10 s', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = createRedisClock();
    for (let i = 0; i < 300; i++) {
      clock.observe(Date.now() + 1000 - i); // leads falling: each stays in the queue until it is 10 s old
      vi.advanceTimersByTime(100);
    }
    // The reading of 10 s ago (index 200, lead 800 ms) is the oldest kept and the largest lead.
    expect(clock.now()).toBe(Date.now() + 800);
  });
});

describe('createRedisClock against the plain rule', () => {
  it('agrees with "the largest lead of the readings of the last 10 s, else the latest" on any sequence', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('observe' as const), lead: fc.integer({ min: -5000, max: 5000 }) }),
      fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 4000 }) }),
      fc.record({ kind: fc.constant('reset' as const), lead: fc.integer({ min: -5000, max: 5000 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        vi.useFakeTimers({ now: 1_000_000 });
        const clock = createRedisClock();
        let readings: Array<{ at: number; lead: number }> = [];
        const model = () => {
          const latest = readings.at(-1);
          if (!latest) return undefined;
          const at = Date.now();
          return at + Math.max(latest.lead, ...readings.filter((r) => r.at >= at - 10_000).map((r) => r.lead));
        };
        for (const s of steps) {
          if (s.kind === 'advance') vi.advanceTimersByTime(s.ms);
          else {
            if (s.kind === 'reset') readings = [];
            readings.push({ at: Date.now(), lead: s.lead });
            if (s.kind === 'reset') clock.reset(Date.now() + s.lead);
            else clock.observe(Date.now() + s.lead);
          }
          expect(clock.now()).toBe(model());
        }
        vi.useRealTimers();
      }),
    );
  });
});
