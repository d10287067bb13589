/** Spans through the `@opentelemetry/api` the application hands over, never imported here (not even its types): bundles never resolve it. */
import { formatTraceparent, newTraceContext, parseTraceparent, readTracestate, type TraceContext } from './trace-context.js';

/**
 * The part of `@opentelemetry/api` used: pass the module itself. Its shapes are written here, not
 * imported (the API is an optional peer, absent from most installs): a context is only handed
 * back to the API, so it is any object; a span is what `startSpan` returns.
 */
export interface OpenTelemetryApi {
  /** The API's `trace`: tracers and the span of a context. */
  trace: {
    getTracer(
      name: string,
      version?: string,
    ): {
      startSpan(
        name: string,
        options?: { kind?: number; attributes?: SpanAttributes },
        context?: object,
      ): {
        spanContext(): { traceId: string; spanId: string; traceFlags: number; isRemote?: boolean; traceState?: { serialize(): string } };
        setAttribute(key: string, value: string | number | boolean): unknown;
        setStatus(status: { code: number; message?: string }): unknown;
        isRecording(): boolean;
        end(): void;
      };
    };
    // The span `startSpan` returns, by its path: a name of its own would be a type to export.
    setSpanContext(
      context: object,
      spanContext: ReturnType<ReturnType<ReturnType<OpenTelemetryApi['trace']['getTracer']>['startSpan']>['spanContext']>,
    ): object;
    getSpan(context: object): ReturnType<ReturnType<OpenTelemetryApi['trace']['getTracer']>['startSpan']> | undefined;
    setSpan(context: object, span: ReturnType<ReturnType<OpenTelemetryApi['trace']['getTracer']>['startSpan']>): object;
  };
  /** The API's `context`: the active context, and running a function in another. */
  context: {
    active(): object;
    with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: object, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F>;
  };
  /** A `TraceState` from a `tracestate` header value. */
  createTraceState(rawTraceState?: string): { serialize(): string };
  /** The empty context a remote parent is set on. */
  ROOT_CONTEXT: object;
}

/** A tracer of the API. */
type OtelTracer = ReturnType<OpenTelemetryApi['trace']['getTracer']>;
/** A span, as a tracer starts it. */
type OtelSpan = ReturnType<OtelTracer['startSpan']>;
/** The identity of a span. */
type OtelSpanContext = ReturnType<OtelSpan['spanContext']>;
/** A context: only handed back to the API. */
type OtelContext = object;

/** Attribute values of a span. */
export type SpanAttributes = Record<string, string | number | boolean>;

/** OpenTelemetry's `SpanKind` values. */
export const SPAN_KIND = { internal: 0, server: 1, client: 2, producer: 3, consumer: 4 } as const;
/** OpenTelemetry's `SpanStatusCode.ERROR`. */
const STATUS_ERROR = 2;

/** A tracer and the API it came from. */
export interface Tracing {
  api: OpenTelemetryApi;
  tracer: OtelTracer;
}

/** The tracing of one package: undefined without the API. */
export function createTracing(api: OpenTelemetryApi | undefined, name: string, version: string): Tracing | undefined {
  return api ? { api, tracer: api.trace.getTracer(name, version) } : undefined;
}

/** What a span is started with. */
export interface SpanStart {
  name: string;
  kind: (typeof SPAN_KIND)[keyof typeof SPAN_KIND];
  /** The remote parent (a received or stored trace context). */
  parent?: TraceContext | undefined;
  /** Take the active span (an instrumentation's) as the parent when there is one, before `parent`. */
  preferActive?: boolean;
  attributes?: SpanAttributes;
}

/** A started span, or its stand-in without OpenTelemetry. */
export interface TracedSpan {
  /** The context to send onward: the span's own, else the parent's, else a new trace. */
  readonly trace: TraceContext;
  readonly recording: boolean;
  set(attributes: SpanAttributes): void;
  /** Ends the span; with `error`, its status is ERROR and `error.type` is set. */
  end(error?: string): void;
  run<T>(fn: () => T): T;
}

/** Starts a span as `start` says; without `tracing`, a stand-in that only carries the trace context. */
export function startSpan(tracing: Tracing | undefined, start: SpanStart): TracedSpan {
  if (!tracing) return new Untraced(start.parent);
  const parent = parentContext(tracing.api, start);
  const span = tracing.tracer.startSpan(start.name, { kind: start.kind, ...(start.attributes ? { attributes: start.attributes } : {}) }, parent);
  return new Traced(tracing.api, span, parent, start.parent);
}

/**
 * A span of the API. Its trace context is made when first asked for: only a resume that writes an
 * event asks, and a no-op tracer (the API without an SDK) would otherwise cost a new trace per request.
 */
class Traced implements TracedSpan {
  readonly recording: boolean;
  #trace: TraceContext | undefined;
  constructor(
    private readonly api: OpenTelemetryApi,
    private readonly span: OtelSpan,
    private readonly parent: OtelContext,
    private readonly remote: TraceContext | undefined,
  ) {
    this.recording = span.isRecording();
  }
  get trace(): TraceContext {
    return (this.#trace ??= ownTrace(this.span.spanContext(), this.remote));
  }
  set(attributes: SpanAttributes): void {
    if (this.recording) for (const [key, value] of Object.entries(attributes)) this.span.setAttribute(key, value);
  }
  end(error?: string): void {
    if (error !== undefined && this.recording) {
      this.span.setAttribute('error.type', error);
      this.span.setStatus({ code: STATUS_ERROR, message: error });
    }
    this.span.end();
  }
  run<T>(fn: () => T): T {
    return this.api.context.with(this.api.trace.setSpan(this.parent, this.span), fn);
  }
}

/** The span's own context; a no-op tracer with no parent answers all-zero ids: then the remote parent's, else a new trace. */
function ownTrace(own: OtelSpanContext, remote: TraceContext | undefined): TraceContext {
  const traceparent = formatTraceparent(own);
  return parseTraceparent(traceparent) ? withState(traceparent, own) : (remote ?? newTraceContext());
}

/** Without OpenTelemetry: only the trace context, made when first asked for (a class: no closures per request). */
class Untraced implements TracedSpan {
  readonly recording = false;
  constructor(private parent: TraceContext | undefined) {}
  get trace(): TraceContext {
    return (this.parent ??= newTraceContext());
  }
  set(): void {}
  end(): void {}
  run<T>(fn: () => T): T {
    return fn();
  }
}

function parentContext(api: OpenTelemetryApi, start: SpanStart): OtelContext {
  if (start.preferActive) {
    const active = api.context.active();
    if (api.trace.getSpan(active)) return active;
  }
  const parsed = start.parent && parseTraceparent(start.parent.traceparent);
  if (!start.parent || !parsed) return api.ROOT_CONTEXT;
  const traceState = start.parent.tracestate ? api.createTraceState(start.parent.tracestate) : undefined;
  return api.trace.setSpanContext(api.ROOT_CONTEXT, { ...parsed, isRemote: true, ...(traceState ? { traceState } : {}) });
}

function withState(traceparent: string, own: OtelSpanContext): TraceContext {
  const state = readTracestate(own.traceState?.serialize());
  return state ? { traceparent, tracestate: state } : { traceparent };
}
