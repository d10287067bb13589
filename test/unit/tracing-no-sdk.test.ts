import * as opentelemetry from '@opentelemetry/api';
import { expect, test } from 'vitest';
import { createTracing, SPAN_KIND, startSpan } from '@session-resume-api/runtime/tracing';
import { parseTraceparent } from '@session-resume-api/runtime/trace-context';

// The API without an SDK registered: its tracer is a no-op whose spans carry all-zero ids.
const tracing = createTracing(opentelemetry, 'tracing-no-sdk-test', '0.0.0');
const REMOTE = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };

test('without an SDK and without a parent, a span carries a new valid trace, the same at every read', () => {
  const span = startSpan(tracing, { name: 'x', kind: SPAN_KIND.server });
  expect(span.recording).toBe(false);
  const first = span.trace;
  expect(parseTraceparent(first.traceparent)).toBeDefined();
  expect(first.traceparent).not.toMatch(/^00-0{32}-/);
  expect(span.trace).toBe(first);
  span.end();
});

test('without an SDK, a remote parent is carried on as it came', () => {
  const span = startSpan(tracing, { name: 'x', kind: SPAN_KIND.server, parent: REMOTE });
  span.end('500');
  expect(span.trace.traceparent).toBe(REMOTE.traceparent);
});

test('two spans without a parent start two traces', () => {
  const a = startSpan(tracing, { name: 'a', kind: SPAN_KIND.server });
  const b = startSpan(tracing, { name: 'b', kind: SPAN_KIND.server });
  expect(a.trace.traceparent.slice(3, 35)).not.toBe(b.trace.traceparent.slice(3, 35));
});
