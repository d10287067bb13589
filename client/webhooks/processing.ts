/**
 * The processing side of a receiver: what the store runs for each recorded event after the
 * answer (slow work after the 200). It builds the handler's
 * context, keeps per-session order when asked, counts runs and reports failures.
 */
import { eventNameOf, sessionIdOf } from '@session-resume-api/runtime/event-identity';
import type { ReceiverMetrics } from './receiver-metrics.js';
import type { ReceiverLogger } from './receiver-logger.js';
import type { EventContext, ResolvedReceiverOptions } from './receiver-options.js';
import type { RecordedEvent, SessionPosition } from './store.js';
import type { ReceivedEvent } from './tolerant-event.js';
import { errorType, handlerSpan, receiverTracing } from './handler-span.js';

/** The handler's view of a recorded event. */
export function contextOf(r: RecordedEvent): EventContext {
  const eventName = eventNameOf(r.event);
  const sessionId = sessionIdOf(r.event);
  return {
    id: r.id,
    key: r.key,
    attempt: r.attempt,
    receivedAt: r.receivedAt,
    ...(eventName ? { eventName } : {}),
    ...(sessionId ? { sessionId } : {}),
    ...(r.trace ? { trace: r.trace } : {}),
  };
}

/**
 * The event's place in its session's order: its session id, its own timestamp and its
 * arrival; undefined when it has no session id or no timestamp a clock can read, and then it
 * is never judged older than another.
 */
export function positionOf(r: RecordedEvent): SessionPosition | undefined {
  const sessionId = sessionIdOf(r.event);
  const time = typeof r.event.timestamp === 'string' ? Date.parse(r.event.timestamp) : Number.NaN;
  if (sessionId === undefined || Number.isNaN(time)) return undefined;
  return { sessionId, time, arrival: r.receivedAt, id: r.id };
}

type FailureContext = EventContext & { event: ReceivedEvent; final: boolean };

/** The report of a failed attempt: `onError` when given, else one log line. */
export function failureReporter(receiverOptions: ResolvedReceiverOptions, logger: ReceiverLogger | undefined) {
  const report =
    receiverOptions.onError ??
    ((error: unknown, ctx: FailureContext) =>
      logger?.[ctx.final ? 'error' : 'warn']?.(
        { err: error, id: ctx.id, attempt: ctx.attempt, maxAttempts: receiverOptions.maxAttempts, event: ctx.eventName, sessionId: ctx.sessionId },
        ctx.final ? 'webhook event dead-lettered after its last attempt failed' : 'webhook event handler failed; it will be retried',
      ));
  return (error: unknown, recorded: RecordedEvent, final: boolean) => {
    try {
      report(error, { ...contextOf(recorded), event: recorded.event, final });
    } catch (err) {
      // A throwing onError must not stop the queue; it is logged instead.
      logger?.error?.({ err, id: recorded.id }, 'onError threw while reporting a failed event');
    }
  };
}

/** One processing attempt of a recorded event: order check, then `onEvent` or `onStale`. */
export function createEventProcessor(receiverOptions: ResolvedReceiverOptions, logger: ReceiverLogger | undefined, metrics: ReceiverMetrics | undefined) {
  const { store, onEvent, onStale, order, dedupeWindowSeconds } = receiverOptions;
  const tracing = receiverTracing(receiverOptions.opentelemetry);
  const handle = (recorded: RecordedEvent, context: EventContext) => {
    if (!tracing) return onEvent(recorded.event, context);
    const span = handlerSpan(tracing, recorded, context.eventName);
    return span.run(async () => {
      try {
        await onEvent(recorded.event, context);
      } catch (error) {
        span.end(errorType(error));
        throw error;
      }
      span.end();
    });
  };
  const stale = async (recorded: RecordedEvent, context: EventContext) => {
    metrics?.handlerRan('stale');
    if (onStale) return onStale(recorded.event, context);
    logger?.warn?.(
      { id: context.id, event: context.eventName, sessionId: context.sessionId, attempt: context.attempt },
      'webhook event is older than one already processed for its session; not handed to onEvent',
    );
  };
  return async (recorded: RecordedEvent): Promise<void> => {
    const context = contextOf(recorded);
    const position = order === 'per-session' ? positionOf(recorded) : undefined;
    if (position && !(await store.advanceSession!(position, dedupeWindowSeconds))) return void (await stale(recorded, context));
    try {
      await handle(recorded, context);
    } catch (error) {
      metrics?.handlerRan('failed');
      throw error;
    }
    metrics?.handlerRan('ok');
  };
}
