/**
 * The per-session order rule (client/webhooks/order-position.ts) and the memory store's
 * marks (client/webhooks/memory/session-marks.ts): an older event of a session is skipped, the
 * same event never is, a mark lasts one dedupe window after its last move.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSessionMarks } from '../../client/webhooks/memory/session-marks.js';
import { isOlderPosition } from '../../client/webhooks/order-position.js';

const at = (time: number, arrival: number, id: string, sessionId = 's1') => ({ sessionId, time, arrival, id });

describe('isOlderPosition', () => {
  it('is older by an earlier time, or the same time and an earlier arrival; never the same id', () => {
    expect(isOlderPosition(at(1, 9, 'a'), at(2, 0, 'b'))).toBe(true);
    expect(isOlderPosition(at(2, 0, 'a'), at(2, 1, 'b'))).toBe(true);
    expect(isOlderPosition(at(2, 1, 'a'), at(2, 1, 'b'))).toBe(false);
    expect(isOlderPosition(at(2, 2, 'a'), at(2, 1, 'b'))).toBe(false);
    expect(isOlderPosition(at(3, 0, 'a'), at(2, 9, 'b'))).toBe(false);
    expect(isOlderPosition(at(1, 0, 'same'), at(2, 0, 'same'))).toBe(false);
  });

  it('never finds two different positions each older than the other', () => {
    const point = fc.record({ time: fc.integer({ min: 0, max: 5 }), arrival: fc.integer({ min: 0, max: 5 }), id: fc.constantFrom('a', 'b', 'c') });
    fc.assert(
      fc.property(point, point, (p, q) => {
        expect(isOlderPosition(p, q) && isOlderPosition(q, p)).toBe(false);
      }),
    );
  });
});

describe('createSessionMarks', () => {
  it('lets the newest event of a session through and skips an older one, per session', () => {
    let now = 0;
    const marks = createSessionMarks(() => now);
    expect(marks.advance(at(10, 1, 'b'), 60)).toBe(true);
    expect(marks.advance(at(5, 2, 'a'), 60)).toBe(false);
    expect(marks.advance(at(5, 2, 'x', 's2'), 60)).toBe(true);
    expect(marks.advance(at(10, 1, 'b'), 60)).toBe(true);
    expect(marks.advance(at(11, 3, 'c'), 60)).toBe(true);
    expect(marks.advance(at(10, 1, 'b'), 60)).toBe(false);
    expect(marks.size).toBe(2);
    now = 59_999;
    expect(marks.advance(at(1, 0, 'old'), 60)).toBe(false);
  });

  it('keeps the newest mark when a retried older event runs again', () => {
    const marks = createSessionMarks(() => 0);
    expect(marks.advance(at(10, 1, 'b'), 60)).toBe(true);
    // The newest one's own retry passes and leaves the mark where it is.
    expect(marks.advance(at(10, 1, 'b'), 60)).toBe(true);
    expect(marks.advance(at(9, 0, 'a'), 60)).toBe(false);
  });

  it('forgets a mark one dedupe window after its last move, and sweeps it', () => {
    let now = 0;
    const marks = createSessionMarks(() => now);
    marks.advance(at(10, 1, 'b'), 60);
    now = 60_000;
    expect(marks.advance(at(1, 0, 'a'), 60)).toBe(true);
    now = 200_000;
    marks.sweep();
    expect(marks.size).toBe(0);
  });
});
