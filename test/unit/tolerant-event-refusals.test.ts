/** Why readEventTolerantly (client/webhooks/tolerant-event.ts) refuses a body: its kind, then field by field. */
import { describe, expect, it } from 'vitest';
import { readEventTolerantly } from '../../client/webhooks/tolerant-event.js';

const RULE = 'a session event is a JSON object with an event name (event or status) or a session id (session.id or session_id)';
const messageOf = (value: unknown) => {
  const reading = readEventTolerantly(value);
  return reading.ok ? 'accepted' : reading.message;
};

describe('readEventTolerantly refusals', () => {
  it('names what the body is when it is not an object', () => {
    expect(messageOf(null)).toBe(`the body is null, not a JSON object; ${RULE}`);
    expect(messageOf([])).toBe(`the body is an array, not a JSON object; ${RULE}`);
    expect(messageOf('')).toBe(`the body is an empty string, not a JSON object; ${RULE}`);
    expect(messageOf('x')).toBe(`the body is a string, not a JSON object; ${RULE}`);
    expect(messageOf(5)).toBe(`the body is a number, not a JSON object; ${RULE}`);
  });

  it('says, field by field and once each, why an object has no event name and no session id', () => {
    const message = messageOf({ event: 5, session: { id: '' }, session_id: null });
    expect(message.startsWith(`${RULE}; this one has none: `)).toBe(true);
    expect(message).toContain('event is a number, not a non-empty string');
    expect(message).toContain('session.id is an empty string, not a non-empty string');
    expect(message).toContain('session_id is null, not a non-empty string');
    expect(message).toContain('status is absent');
    const reasons = message.slice(`${RULE}; this one has none: `.length).split('; ');
    expect(new Set(reasons).size).toBe(reasons.length);
  });

  it('names a session that is not an object, and a nested field by its dotted path', () => {
    expect(messageOf({ session: 'sess_1' })).toContain('session is a string, not an object');
    expect(messageOf({ session: {} })).toContain('session.id is absent');
    expect(messageOf({ 'a/b': 1 })).toContain('event is absent');
  });
});
