/**
 * OpenTelemetry's SDK in one test process, exporting to memory: a tracer provider with the
 * InMemorySpanExporter and the AsyncLocalStorage context manager, registered globally, and the
 * finished spans as plain objects a test (or another process) can compare.
 */
import * as opentelemetry from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

/** A finished span, as the tests read it. */
export interface FinishedSpan {
  name: string;
  /** SpanKind: 0 internal, 1 server, 2 client, 3 producer, 4 consumer. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  scope: string;
  attributes: Record<string, unknown>;
  /** SpanStatusCode: 0 unset, 1 ok, 2 error. */
  status: number;
}

/** Registers the SDK for this process; `finished()` lists the spans ended so far. */
export function startMemoryTracing(): { opentelemetry: typeof opentelemetry; finished(): FinishedSpan[]; shutdown(): Promise<void> } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  opentelemetry.trace.setGlobalTracerProvider(provider);
  opentelemetry.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  return {
    opentelemetry,
    finished: () =>
      exporter.getFinishedSpans().map((span) => ({
        name: span.name,
        kind: span.kind,
        traceId: span.spanContext().traceId,
        spanId: span.spanContext().spanId,
        parentSpanId: span.parentSpanContext?.spanId,
        scope: span.instrumentationScope.name,
        attributes: { ...span.attributes },
        status: span.status.code,
      })),
    shutdown: () => provider.shutdown(),
  };
}
