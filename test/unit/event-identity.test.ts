/** The identity of a received event (runtime/event-identity.ts): names, ids, canonical JSON and the dedupe key. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, dedupeKey, eventNameOf, sessionIdOf } from '@session-resume-api/runtime/event-identity';

const AT = '2026-11-21T16:00:00.000Z';

describe('dedupeKey', () => {
  it('is one sha256 hex key per (event, session, timestamp), whatever else the body holds', () => {
    const a = dedupeKey({ event: 'session.resumed', session: { id: 'sess_1' }, timestamp: AT, data: { n: 1 } });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(dedupeKey({ status: 'session.resumed', session_id: 'sess_1', timestamp: AT, data: { n: 2 } })).toBe(a);
    expect(dedupeKey({ event: 'session.resumed', session: { id: 'sess_1' }, timestamp: '2026-11-21T16:00:01.000Z' })).not.toBe(a);
  });

  it('falls back to the whole body without a timestamp: two events of one session stay two', () => {
    const one = { event: 'session.resumed', session: { id: 'sess_1' }, data: { n: 1 } };
    const two = { event: 'session.resumed', session: { id: 'sess_1' }, data: { n: 2 } };
    expect(dedupeKey(one)).not.toBe(dedupeKey(two));
    expect(dedupeKey(one)).toBe(dedupeKey({ data: { n: 1 }, session: { id: 'sess_1' }, event: 'session.resumed' }));
  });

  it('falls back to the whole body without an event name or a session id', () => {
    expect(dedupeKey({ session: { id: 'sess_1' }, timestamp: AT, data: 1 })).not.toBe(dedupeKey({ session: { id: 'sess_1' }, timestamp: AT, data: 2 }));
    expect(dedupeKey({ event: 'e', timestamp: AT, data: 1 })).not.toBe(dedupeKey({ event: 'e', timestamp: AT, data: 2 }));
  });

  it('keeps the two forms apart: a body never takes the key of a (name, id, timestamp) triple', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.string(), (event, id, timestamp) => {
        expect(dedupeKey({ event, session: { id }, timestamp })).not.toBe(dedupeKey({ event, session: { id } }));
      }),
    );
  });
});

describe('canonicalJson', () => {
  it('sorts members at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }], u: undefined })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
  });

  it('writes undefined as null, in an array and alone', () => {
    expect(canonicalJson([1, undefined, null])).toBe('[1,null,null]');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('gives one text for any member order, and JSON that parses back to the value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
        if (value && typeof value === 'object' && !Array.isArray(value)) {
          const reversed = Object.fromEntries(Object.entries(value).reverse());
          expect(canonicalJson(reversed)).toBe(canonicalJson(value));
        }
      }),
    );
  });
});

describe('eventNameOf and sessionIdOf', () => {
  it('prefer the nested form, fall back to the flat one, and skip empty or non-string values', () => {
    expect(eventNameOf({ event: 'a', status: 'b' })).toBe('a');
    expect(eventNameOf({ event: '', status: 'b' })).toBe('b');
    expect(eventNameOf({ event: 1 })).toBeUndefined();
    expect(sessionIdOf({ session: { id: 's' }, session_id: 't' })).toBe('s');
    expect(sessionIdOf({ session: null, session_id: 't' })).toBe('t');
    expect(sessionIdOf({ session: { id: '' } })).toBeUndefined();
  });
});
