/** The server's OpenTelemetry tracer: one tracer name for every server span, so an operator selects them together. */
import { createTracing, type OpenTelemetryApi, type Tracing } from '@session-resume-api/runtime/tracing';
import { SERVER_VERSION } from '../version.js';

/** The instrumentation scope of the server's spans. */
export const SERVER_TRACER_NAME = 'session-resume-api-server';

/** The server's tracing, or undefined without the API. */
export function serverTracing(opentelemetry: OpenTelemetryApi | undefined): Tracing | undefined {
  return createTracing(opentelemetry, SERVER_TRACER_NAME, SERVER_VERSION);
}
