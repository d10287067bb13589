/**
 * The receiver kit takes what the real service may send (x-decisions: event-payload-forms,
 * event-field-bounds): the nested form of the source and the flat form of the vendor's SDK,
 * of any length; only a body that is not an object, or names neither an event nor a session,
 * is refused. The dedupe identity is the same for both forms of one event.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readEventTolerantly } from '../../client/webhooks/tolerant-event.js';
import { canonicalJson, dedupeKey, eventNameOf, sessionIdOf } from '@session-resume-api/runtime/event-identity';
import { contract } from '@session-resume-api/runtime/contract';

const text = fc.string({ minLength: 1, maxLength: 300 });
const json = fc.jsonValue({ maxDepth: 3 });
/** Any JSON object, with the identity fields sometimes present in any type. */
const anyObject = fc.record(
  {
    event: fc.oneof(text, json),
    status: fc.oneof(text, json),
    session: fc.oneof(fc.record({ id: fc.oneof(text, json) }, { requiredKeys: [] }), json),
    session_id: fc.oneof(text, json),
    timestamp: fc.oneof(text, json),
    data: json,
  },
  { requiredKeys: [] },
);

describe('readEventTolerantly', () => {
  it('accepts fields far beyond the bounds that the strict schema refuses', () => {
    const event = { event: 'e'.repeat(10_000), session: { id: `${'i'.repeat(5_000)}\n` }, timestamp: 't'.repeat(1_000) };
    expect(contract.validate('SessionEvent', event).ok).toBe(false);
    expect(readEventTolerantly(event)).toEqual({ ok: true, event });
  });

  it('normalizes the flat forms the vendor SDK documents, keeping every field and no invented timestamp', () => {
    const done = { event: 'done', session_id: 'sess_1', data: { a: 1 } };
    expect(readEventTolerantly(done)).toEqual({ ok: true, event: { ...done, session: { id: 'sess_1' } } });
    const server = { session_id: 'sess_2', status: 'completed', result: { ok: true }, error: null };
    const read = readEventTolerantly(server);
    expect(read).toEqual({ ok: true, event: { ...server, event: 'completed', session: { id: 'sess_2' } } });
    expect(read.ok && 'timestamp' in read.event).toBe(false);
    // session.id is added beside the session's other fields, never over a field as sent.
    expect(readEventTolerantly({ event: 'e', session: { name: 'n' }, session_id: 's' })).toMatchObject({
      ok: true,
      event: { session: { name: 'n', id: 's' } },
    });
    expect(readEventTolerantly({ event: 'e', session: 'text', session_id: 's' })).toMatchObject({ ok: true, event: { session: 'text' } });
  });

  it.each([
    [[], 'not a JSON object'],
    ['session.resumed', 'not a JSON object'],
    [null, 'not a JSON object'],
    [{}, 'event is absent; status is absent; session is absent; session_id is absent'],
    [
      { event: '', status: 3, session: { id: '' }, session_id: 9, timestamp: 't' },
      'event is an empty string, not a non-empty string; status is a number, not a non-empty string; session.id is an empty string',
    ],
    // The field is there; it is the wrong type: the message says so, never "has neither".
    [{ session: { id: 5 } }, 'session.id is a number, not a non-empty string'],
    [{ session: 'sess_1' }, 'session is a string, not an object'],
    [{ session: {} }, 'session.id is absent'],
  ])('refuses %j', (payload, message) => {
    const result = readEventTolerantly(payload);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(message);
  });

  it('property: accepted exactly when the body is an object with an event name or a session id', () => {
    fc.assert(
      fc.property(anyObject, (body) => {
        const named = eventNameOf(body) !== undefined || sessionIdOf(body) !== undefined;
        const read = readEventTolerantly(body);
        expect(read.ok).toBe(named);
        expect(contract.validate('ReceivedSessionEvent', body).ok).toBe(named);
        if (read.ok) {
          // Every field as sent is kept; only event and session are ever added.
          for (const [name, value] of Object.entries(body)) if (name !== 'session') expect(read.event[name]).toEqual(value);
          expect(read.event.timestamp).toEqual(body.timestamp);
          if (body.event === undefined) expect(read.event.event).toEqual(eventNameOf(body));
          const s = body.session as Record<string, unknown> | undefined;
          const fillable = s === undefined || (typeof s === 'object' && s !== null && !Array.isArray(s) && s.id === undefined);
          const id = sessionIdOf(body);
          expect(read.event.session).toEqual(fillable && id !== undefined ? { ...s, id } : s);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('property: anything that is not an object is refused, never thrown on', () => {
    fc.assert(fc.property(fc.oneof(fc.jsonValue().filter((v) => typeof v !== 'object' || v === null || Array.isArray(v))), (v) => !readEventTolerantly(v).ok));
  });
});

describe('dedupeKey', () => {
  it('is the sha256 of the triple when complete: the nested and the flat form of one event share it', () => {
    const nested = { event: 'done', session: { id: 's1' }, timestamp: '1' };
    expect(dedupeKey(nested)).toBe(dedupeKey({ status: 'done', session_id: 's1', timestamp: '1', data: { x: 1 } }));
    expect(dedupeKey(nested)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('property: without a complete triple, equal canonical bodies and only those share a key', () => {
    fc.assert(
      fc.property(anyObject, anyObject, (a, b) => {
        const incomplete = (o: typeof a) => eventNameOf(o) === undefined || sessionIdOf(o) === undefined || o.timestamp === undefined;
        fc.pre(incomplete(a) && incomplete(b));
        expect(dedupeKey(a) === dedupeKey(b)).toBe(canonicalJson(a) === canonicalJson(b));
        // Member order does not matter.
        expect(dedupeKey(Object.fromEntries(Object.entries(a).reverse()))).toBe(dedupeKey(a));
      }),
      { numRuns: 300 },
    );
  });

  it('property: with a complete triple, the key depends on the triple only', () => {
    fc.assert(
      fc.property(text, text, text, json, json, (event, id, timestamp, x, y) => {
        expect(dedupeKey({ event, session: { id }, timestamp, x })).toBe(dedupeKey({ status: event, session_id: id, timestamp, y }));
      }),
      { numRuns: 200 },
    );
  });

  it('canonicalJson sorts members at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }, 1] })).toBe('{"a":[{"c":3,"d":2},1],"b":1}');
  });
});
