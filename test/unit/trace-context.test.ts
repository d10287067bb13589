/**
 * W3C Trace Context as both sides read it (runtime/trace-context.ts): outside input, so a
 * malformed value never crashes and is never propagated; a bad traceparent starts a new trace.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkTraceContext,
  formatTraceparent,
  MAX_TRACESTATE_LENGTH,
  newTraceContext,
  parseTraceparent,
  readTraceContext,
  readTracestate,
} from '@session-resume-api/runtime/trace-context';
import { startSpan, SPAN_KIND } from '@session-resume-api/runtime/tracing';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const VALID = `00-${TRACE_ID}-${SPAN_ID}-01`;
const hex = (length: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });
const VERSION_00 = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

describe('parseTraceparent', () => {
  it("reads the specification's example", () => {
    expect(parseTraceparent(VALID)).toEqual({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 });
  });

  it.each([
    ['upper-case hex', `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN_ID}-01`],
    ['an all-zero parent id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE_ID}-${SPAN_ID}-01`],
    ['version 00 with more after the flags', `${VALID}-extra`],
    ['a short trace id', `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`],
    ['a missing field', `00-${TRACE_ID}-${SPAN_ID}`],
    ['spaces around it', ` ${VALID}`],
    ['another separator', VALID.replaceAll('-', '_')],
    ['not a string', 42],
  ])('refuses %s', (_name, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it("reads a later version's first four fields and ignores what follows", () => {
    expect(parseTraceparent(`01-${TRACE_ID}-${SPAN_ID}-01-what-comes-later`)).toEqual({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 });
    expect(parseTraceparent(`01-${TRACE_ID}-${SPAN_ID}-01x`)).toBeUndefined();
  });

  it('round-trips every valid value through formatTraceparent', () => {
    fc.assert(
      fc.property(hex(32), hex(16), fc.integer({ min: 0, max: 255 }), (traceId, spanId, traceFlags) => {
        fc.pre(/[^0]/.test(traceId) && /[^0]/.test(spanId));
        const value = formatTraceparent({ traceId, spanId, traceFlags });
        expect(parseTraceparent(value)).toEqual({ traceId, spanId, traceFlags });
      }),
    );
  });

  it('never throws, and anything it accepts is well formed', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'0123456789abcdefF-x '), minLength: 50, maxLength: 60 }), fc.anything()),
        (value) => {
          const parsed = parseTraceparent(value);
          if (parsed) expect(formatTraceparent(parsed)).toMatch(VERSION_00);
        },
      ),
    );
  });
});

describe('readTracestate', () => {
  it('keeps a valid list, trimmed, and joins several header values into one', () => {
    expect(readTracestate('rojo=00f067aa0ba902b7, congo=t61rcWkgMzE')).toBe('rojo=00f067aa0ba902b7,congo=t61rcWkgMzE');
    expect(readTracestate(['rojo=1', 'tenant@vendor=2'])).toBe('rojo=1,tenant@vendor=2');
  });

  it.each([
    ['a key twice', 'a=1,a=2'],
    ['an upper-case key', 'Rojo=1'],
    ['a value with =', 'a=b=c'],
    ['a member without =', 'rojo'],
    ['more than 32 members', Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',')],
    ['more than the kept length', `a=${'x'.repeat(MAX_TRACESTATE_LENGTH)}`],
    ['nothing but commas', ' , ,'],
  ])('drops a list with %s whole', (_name, value) => {
    expect(readTracestate(value)).toBeUndefined();
  });
});

describe('readTraceContext', () => {
  it('keeps a valid traceparent in its version-00 form, with its tracestate', () => {
    expect(readTraceContext(`01-${TRACE_ID}-${SPAN_ID}-01-later`, 'rojo=1')).toEqual({ traceparent: VALID, tracestate: 'rojo=1' });
    expect(readTraceContext([VALID], undefined)).toEqual({ traceparent: VALID });
  });

  it('refuses a traceparent sent twice, and keeps the traceparent when only the tracestate is bad', () => {
    expect(readTraceContext([VALID, VALID])).toBeUndefined();
    // node:http joins a repeated header into one value.
    expect(readTraceContext(`${VALID}, ${VALID}`)).toBeUndefined();
    expect(readTraceContext(`01-${TRACE_ID}-${SPAN_ID}-01, ${VALID}`)).toBeUndefined();
    expect(readTraceContext(VALID, 'a=1,a=2')).toEqual({ traceparent: VALID });
  });

  it('never throws and never propagates a value it did not check: what it keeps is well formed', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (traceparent, tracestate) => {
        const trace = readTraceContext(traceparent, tracestate);
        if (trace === undefined) return;
        expect(trace.traceparent).toMatch(VERSION_00);
        if (trace.tracestate !== undefined) expect(readTracestate(trace.tracestate)).toBe(trace.tracestate);
      }),
    );
  });

  it('checks a context read back from storage the same way', () => {
    expect(checkTraceContext({ traceparent: VALID })).toEqual({ traceparent: VALID });
    expect(checkTraceContext({ traceparent: 'nonsense' })).toBeUndefined();
    expect(checkTraceContext(null)).toBeUndefined();
    expect(checkTraceContext('00-x')).toBeUndefined();
  });
});

describe('a span without OpenTelemetry', () => {
  it('carries the parent it was given, unchanged', () => {
    expect(startSpan(undefined, { name: 'x', kind: SPAN_KIND.client, parent: { traceparent: VALID, tracestate: 'a=1' } }).trace).toEqual({
      traceparent: VALID,
      tracestate: 'a=1',
    });
  });

  it('starts a new, sampled trace for a bad or missing traceparent: a fresh one each time', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constant(undefined), fc.constant(`00-${'0'.repeat(32)}-${SPAN_ID}-01`)), (bad) => {
        const parent = readTraceContext(bad);
        fc.pre(parent === undefined);
        const { trace } = startSpan(undefined, { name: 'x', kind: SPAN_KIND.server, parent });
        expect(trace.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
        expect(trace.tracestate).toBeUndefined();
        expect(parseTraceparent(trace.traceparent)).toBeDefined();
      }),
    );
    expect(newTraceContext().traceparent.slice(3, 35)).not.toBe(newTraceContext().traceparent.slice(3, 35));
  });
});
