/**
 * Answer → outcome (client/outcome.ts): success only from a 2xx whose body says so, the
 * not_paused marker whatever the status, then the status; never a throw, whatever the body.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasNotPausedMarker, toResumeOutcome } from '../../client/outcome.js';

const NOW = Date.UTC(2026, 10, 23, 10, 0, 0);
const RESUMED = JSON.stringify({ success: true, message: 'Session resumed.' });

/** The message of an outcome that is not `resumed`. */
const messageOf = (o: ReturnType<typeof toResumeOutcome>) => (o.kind === 'resumed' ? undefined : o.message);

function outcome(status: number, text: string, headers: Record<string, string> = {}, sessionId = 'sess_1') {
  return toResumeOutcome({ sessionId, status, headers: new Headers(headers), text, attempts: 1, now: NOW });
}

describe('toResumeOutcome', () => {
  it('is resumed for a 2xx whose body has success: true and a message', () => {
    expect(outcome(200, RESUMED)).toEqual({ kind: 'resumed', status: 200, attempts: 1, result: { success: true, message: 'Session resumed.' } });
    expect(outcome(299, RESUMED).kind).toBe('resumed');
  });

  it('is never resumed for a non-2xx answer, even one whose body says success: true', () => {
    for (const status of [199, 300, 302, 400, 409, 500, 503]) expect(outcome(status, RESUMED).kind).not.toBe('resumed');
    expect(outcome(500, RESUMED)).toMatchObject({ kind: 'unexpected', status: 500, message: 'Session resumed.', body: RESUMED });
  });

  it('is not resumed for a 2xx body that lacks a boolean success: true or a string message', () => {
    for (const body of [
      '{"success":true}',
      '{"success":"true","message":"x"}',
      '{"success":true,"message":1}',
      '{"success":false,"message":"no"}',
      'null',
      '"ok"',
      '[]',
      'ok',
      '',
    ]) {
      expect(outcome(200, body).kind).toBe('unexpected');
    }
  });

  it('reads the not_paused marker whatever the status', () => {
    const body = JSON.stringify({ success: false, error: 'not_paused', message: 'Session sess_1 is not paused.' });
    for (const status of [200, 409, 400, 500])
      expect(outcome(status, body)).toMatchObject({ kind: 'not_paused', status, message: 'Session sess_1 is not paused.' });
  });

  it('maps 404 to not_found, 401 and 403 to unauthorized, 429 to rate_limited, the rest to unexpected', () => {
    expect(outcome(404, '{"message":"Session x was not found."}')).toMatchObject({ kind: 'not_found', message: 'Session x was not found.' });
    expect(outcome(401, '').kind).toBe('unauthorized');
    expect(outcome(403, '').kind).toBe('unauthorized');
    expect(outcome(400, '').kind).toBe('unexpected');
    expect(outcome(500, '').kind).toBe('unexpected');
  });

  it('gives a 429 its Retry-After in seconds, a date read from the answer clock', () => {
    expect(outcome(429, '', { 'retry-after': '30' })).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 30 });
    expect(outcome(429, '', { 'retry-after': new Date(NOW + 12_000).toUTCString() })).toMatchObject({ retryAfterSeconds: 12 });
    expect(outcome(429, '')).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: undefined });
    expect(outcome(503, '', { 'retry-after': '30' })).not.toHaveProperty('retryAfterSeconds');
  });

  it('takes the message from the JSON body, else the start of the text, else the status', () => {
    expect(messageOf(outcome(500, '{"message":"boom"}'))).toBe('boom');
    expect(messageOf(outcome(500, '{"message":""}'))).toBe('{"message":""}');
    expect(messageOf(outcome(500, '{"message":7}'))).toBe('{"message":7}');
    expect(messageOf(outcome(502, '  <html>Bad gateway</html>\n'))).toBe('<html>Bad gateway</html>');
    expect(messageOf(outcome(502, 'x'.repeat(500)))).toBe('x'.repeat(200));
    expect(messageOf(outcome(502, '   '))).toBe('HTTP 502');
    expect(messageOf(outcome(502, ''))).toBe('HTTP 502');
    expect(messageOf(outcome(502, 'null'))).toBe('null');
    expect(outcome(502, '   ')).toMatchObject({ body: '   ' });
  });

  it('carries the attempts and the rate limit the answer reported, and no rateLimit key without one', () => {
    const limited = outcome(200, RESUMED, { 'RateLimit-Limit': '10', 'RateLimit-Remaining': '3', 'RateLimit-Reset': '7' });
    expect(limited.rateLimit).toEqual({ limit: 10, remaining: 3, resetSeconds: 7 });
    expect(outcome(200, RESUMED)).not.toHaveProperty('rateLimit');
    expect(toResumeOutcome({ sessionId: 's', status: 200, headers: new Headers(), text: RESUMED, attempts: 3 }).attempts).toBe(3);
  });

  it('never throws, whatever the status, headers and body', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), fc.oneof(fc.string(), fc.json()), fc.string(), (status, text, retryAfter) => {
        const result = outcome(status, text, { 'retry-after': retryAfter.replace(/[\r\n\0]/g, '') });
        expect(typeof result.kind).toBe('string');
      }),
    );
  });
});

describe('hasNotPausedMarker', () => {
  it('finds the marker in any text when the session id does not contain it', () => {
    expect(hasNotPausedMarker('{"error":"not_paused"}', 'sess_1')).toBe(true);
    expect(hasNotPausedMarker('{"error":"not_found"}', 'sess_1')).toBe(false);
  });

  it("ignores the marker inside the session id's echoes: as is, URL-encoded and JSON-escaped", () => {
    expect(hasNotPausedMarker('Session sess_not_paused_1 was not found.', 'sess_not_paused_1')).toBe(false);
    expect(hasNotPausedMarker('No session at /sessions/not_paused%20x/resume', 'not_paused x')).toBe(false);
    expect(hasNotPausedMarker('{"message":"Session a\\"not_paused was not found."}', 'a"not_paused')).toBe(false);
    expect(outcome(404, '{"message":"Session sess_not_paused_1 was not found."}', {}, 'sess_not_paused_1').kind).toBe('not_found');
  });

  it('still finds the marker beside an echo of such an id', () => {
    expect(hasNotPausedMarker('{"error":"not_paused","message":"Session sess_not_paused_1 is active."}', 'sess_not_paused_1')).toBe(true);
  });
});
