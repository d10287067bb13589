/** A consumer span around `onEvent`, child of the delivery's `traceparent` and active while the handler runs. */
import { createTracing, SPAN_KIND, startSpan, type OpenTelemetryApi, type TracedSpan, type Tracing } from '@session-resume-api/runtime/tracing';
import { PACKAGE_VERSION } from '../version.js';
import type { RecordedEvent } from './store.js';

/** The instrumentation scope of the receiver's spans. */
export const RECEIVER_TRACER_NAME = 'session-resume-api/webhooks';

/** The receiver's tracing, or undefined without the API. */
export function receiverTracing(opentelemetry: OpenTelemetryApi | undefined): Tracing | undefined {
  return createTracing(opentelemetry, RECEIVER_TRACER_NAME, PACKAGE_VERSION);
}

/** Starts the span of one processing attempt of `recorded`. */
export function handlerSpan(tracing: Tracing, recorded: RecordedEvent, eventName: string | undefined): TracedSpan {
  return startSpan(tracing, {
    name: `process ${eventName ?? 'event'}`,
    kind: SPAN_KIND.consumer,
    parent: recorded.trace,
    attributes: {
      'messaging.operation.type': 'process',
      'webhook.record.id': recorded.id,
      'webhook.processing.attempt': recorded.attempt,
      ...(eventName ? { 'webhook.event': eventName } : {}),
    },
  });
}

/** The `error.type` of a handler's failure: the error's name. */
export function errorType(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
