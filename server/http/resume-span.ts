/**
 * The span of a resume (OpenTelemetry HTTP server conventions): child of the request's
 * `traceparent`, or of the active span when an HTTP instrumentation made one. Its context travels
 * with the event; without OpenTelemetry, the request's `traceparent` or a new trace (x-decisions: webhook-outbox).
 */
import type { Request } from 'express';
import { readTraceContext } from '@session-resume-api/runtime/trace-context';
import { SPAN_KIND, startSpan, type TracedSpan, type Tracing } from '@session-resume-api/runtime/tracing';
import { RESUME_PATH } from '@session-resume-api/runtime/resume-path';

/** Starts the span of one resume request. */
export function resumeSpan(tracing: Tracing | undefined, req: Request): TracedSpan {
  // node:http joins repeated values with ", ": two traceparents make one invalid value, tracestates one list.
  const parent = readTraceContext(req.headers.traceparent, req.headers.tracestate);
  if (!tracing) return startSpan(undefined, { name: '', kind: SPAN_KIND.internal, parent });
  const nested = tracing.api.trace.getSpan(tracing.api.context.active()) !== undefined;
  return startSpan(tracing, {
    name: nested ? 'session resume' : `POST ${RESUME_PATH}`,
    kind: nested ? SPAN_KIND.internal : SPAN_KIND.server,
    parent,
    preferActive: true,
    attributes: { 'http.request.method': 'POST', 'http.route': RESUME_PATH },
  });
}

/** Ends the span with the answer's status; only a 5xx is an error (HTTP server conventions). */
export function endResumeSpan(span: TracedSpan, status: number, outcome: string | undefined): void {
  if (span.recording) span.set({ 'http.response.status_code': status, ...(outcome ? { 'session_resume.outcome': outcome } : {}) });
  span.end(status >= 500 ? String(status) : undefined);
}
