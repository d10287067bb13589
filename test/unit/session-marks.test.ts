/**
 * The memory store's per-session order marks: a copy of the newest event keeps the mark where the
 * first copy set it, and a sweep drops exactly the marks whose window has ended.
 */
import { describe, expect, it } from 'vitest';
import { createSessionMarks } from '../../client/webhooks/memory/session-marks.js';

const at = (id: string, time: number, arrival: number) => ({ sessionId: 'sess_1', id, time, arrival });

describe('session marks', () => {
  it('a later copy of the newest event leaves the mark at its first arrival', () => {
    const marks = createSessionMarks(() => 0);
    expect(marks.advance(at('a', 10, 1), 60)).toBe(true);
    // The same event again, arrived later: still the newest, the mark keeps arrival 1.
    expect(marks.advance(at('a', 10, 5), 60)).toBe(true);
    // Same timestamp, arrived after the first copy of a: not older than the mark.
    expect(marks.advance(at('b', 10, 3), 60)).toBe(true);
  });

  it('a sweep drops a mark whose window ends now, and keeps one still inside it', () => {
    let now = 0;
    const marks = createSessionMarks(() => now);
    marks.advance(at('a', 10, 1), 1);
    marks.advance({ ...at('b', 10, 1), sessionId: 'sess_2' }, 2);
    now = 1000;
    marks.sweep();
    expect(marks.size).toBe(1);
    now = 2000;
    marks.sweep();
    expect(marks.size).toBe(0);
  });
});
