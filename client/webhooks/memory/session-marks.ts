/**
 * The memory store's per-session order marks (`order: 'per-session'`): the newest position
 * processed per session, kept for the dedupe window after its last move, swept with the records.
 */
import { isOlderPosition } from '../order-position.js';
import type { SessionPosition } from '../store.js';

interface Mark {
  time: number;
  arrival: number;
  id: string;
  expiresAt: number;
}

/** Compares and moves the mark of a session in one synchronous step (one process, one thread). */
export function createSessionMarks(now: () => number) {
  const marks = new Map<string, Mark>();
  return {
    get size() {
      return marks.size;
    },
    advance(position: SessionPosition, windowSeconds: number): boolean {
      const t = now();
      const mark = marks.get(position.sessionId);
      const newest = mark && mark.expiresAt > t ? mark : undefined;
      if (newest && isOlderPosition(position, newest)) return false;
      const { time, arrival, id } = newest && !isOlderPosition(newest, position) ? newest : position;
      marks.set(position.sessionId, { time, arrival, id, expiresAt: t + windowSeconds * 1000 });
      return true;
    },
    sweep(): void {
      const t = now();
      for (const [sessionId, mark] of marks) if (mark.expiresAt <= t) marks.delete(sessionId);
    },
  };
}
