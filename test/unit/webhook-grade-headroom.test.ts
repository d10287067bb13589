/**
 * `webhook grade`'s answer-time headroom: the median and the slowest answer time of every
 * delivery of the run against the deadline; a timeout fails it, no answer at all is n/o, never pass.
 */
import { describe, expect, it } from 'vitest';
import type { DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';
import { judgeHeadroom } from '../../cli/webhook-grade/ack-checks.js';

/** The report's spelling of "not observable", in one place. */
const NO = 'n/o' as const;

const answered = (durationMs: number, status = 200): DeliveryResult =>
  (status === 200
    ? { delivered: true, status, durationMs }
    : { delivered: false, reason: 'bad_status', status, message: `answered ${status}`, durationMs }) as DeliveryResult;
const timedOut = (durationMs: number): DeliveryResult =>
  ({ delivered: false, reason: 'timeout', message: 'gave no 200 within 5000 ms', durationMs }) as DeliveryResult;
const refused = (): DeliveryResult => ({ delivered: false, reason: 'connection_failed', message: 'refused', durationMs: 1 }) as DeliveryResult;

describe('judgeHeadroom', () => {
  it('every answer within the deadline: pass, with the median and the slowest and what is left', () => {
    const verdict = judgeHeadroom([answered(3), answered(9), answered(4), answered(41, 400)], 5000);
    expect(verdict).toEqual({ grade: 'pass', evidence: 'median 4 ms, slowest 41 ms over 4 answered deliveries (deadline 5000 ms: 4959 ms to spare)' });
  });

  it('the median of an even count is the lower middle (nearest rank)', () => {
    expect(judgeHeadroom([answered(10), answered(20)], 5000).evidence).toMatch(/^median 10 ms, slowest 20 ms over 2 answered deliveries/);
  });

  it('one delivery timed out: FAIL, whatever the others', () => {
    const verdict = judgeHeadroom([answered(3), timedOut(5001), answered(5)], 5000);
    expect(verdict.grade).toBe('fail');
    expect(verdict.evidence).toBe('1 of 3 deliveries got no answer within 5000 ms (no headroom); the others: median 3 ms, slowest 5 ms');
  });

  it('every delivery timed out: FAIL, with no answer time', () => {
    expect(judgeHeadroom([timedOut(5000)], 5000)).toEqual({ grade: 'fail', evidence: '1 of 1 deliveries got no answer within 5000 ms (no headroom)' });
  });

  it('nothing answered and nothing timed out (refused), or nothing sent: n/o, never pass', () => {
    expect(judgeHeadroom([refused()], 5000)).toMatchObject({ grade: NO, evidence: 'no delivery was answered, so no answer time was observed (see ack).' });
    expect(judgeHeadroom([], 5000).grade).toBe(NO);
  });

  it('refused deliveries are left out of the times and said', () => {
    expect(judgeHeadroom([answered(7), refused()], 5000)).toEqual({
      grade: 'pass',
      evidence: 'median 7 ms, slowest 7 ms over 1 answered delivery (deadline 5000 ms: 4993 ms to spare); 1 got no answer (not a timeout)',
    });
  });
});
