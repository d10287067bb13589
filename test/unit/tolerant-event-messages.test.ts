/**
 * The receiver's refusal messages word for word: each field of the schema's anyOf once, in the
 * schema's order, saying what it is and what it should be; and a normalized event gains no field
 * it has no value for.
 */
import { describe, expect, it } from 'vitest';
import { readEventTolerantly } from '../../client/webhooks/tolerant-event.js';

const RULE = 'a session event is a JSON object with an event name (event or status) or a session id (session.id or session_id); this one has none: ';

describe('readEventTolerantly messages', () => {
  it.each([
    [{ event: '', session: {} }, 'event is an empty string, not a non-empty string; status is absent; session.id is absent; session_id is absent'],
    [{ session: 5 }, 'event is absent; status is absent; session is a number, not an object; session_id is absent'],
    [{ session: null, status: '' }, 'event is absent; status is an empty string, not a non-empty string; session is null, not an object; session_id is absent'],
    [
      { event: 5, session: { id: '' } },
      'event is a number, not a non-empty string; status is absent; session.id is an empty string, not a non-empty string; session_id is absent',
    ],
    [
      { event: [], session: { id: {} }, session_id: true },
      'event is an array, not a non-empty string; status is absent; session.id is an object, not a non-empty string; session_id is a boolean, not a non-empty string',
    ],
    [{ timestamp: 5 }, 'event is absent; status is absent; session is absent; session_id is absent'],
  ])('%j', (body, reasons) => {
    expect(readEventTolerantly(body)).toStrictEqual({ ok: false, message: RULE + reasons });
  });

  it('names what the body is when it is not an object', () => {
    expect(readEventTolerantly('')).toStrictEqual({
      ok: false,
      message: `the body is an empty string, not a JSON object; ${RULE.replace(/; this one has none: $/, '')}`,
    });
  });

  it('fills in only the fields it has a value for', () => {
    expect(readEventTolerantly({ session_id: 's' })).toStrictEqual({ ok: true, event: { session_id: 's', session: { id: 's' } } });
    expect(readEventTolerantly({ status: 'done' })).toStrictEqual({ ok: true, event: { status: 'done', event: 'done' } });
  });
});
