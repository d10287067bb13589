/** Standard Webhooks message: the one type the stores, the delivery engine and the HTTP layer speak. */
import type { TraceContext } from '@session-resume-api/runtime/trace-context';
import type { SessionEvent } from '@session-resume-api/runtime/types';

/** A webhook event written in the same step as the resume; `id` is its `webhook-id` on every attempt and replay. */
export interface WebhookMessage {
  /** Stable identity (Standard Webhooks `webhook-id`), e.g. `msg_6f1c…`; also the delivery job's id. */
  id: string;
  /** The JSON body sent to the receiver. */
  payload: SessionEvent;
  /** The resume's W3C trace context, sent on every attempt (x-decisions: webhook-outbox); a new trace when absent. */
  trace?: TraceContext;
}

/** The `session.resumed` event of a resume at `timestamp`, with a fresh identity and the resume's trace context. */
export function resumedEvent(id: string, sessionId: string, timestamp: string, trace?: TraceContext): WebhookMessage {
  return { id, payload: { event: 'session.resumed', session: { id: sessionId }, timestamp }, ...(trace ? { trace } : {}) };
}
