/**
 * The engine's spans (OpenTelemetry HTTP client conventions where they fit): a client span per
 * attempt and a producer span per relay hand-over. Never the URL's path: it may carry a secret token.
 */
import type { DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';
import { SPAN_KIND, startSpan, type TracedSpan, type Tracing } from '@session-resume-api/runtime/tracing';
import type { WebhookMessage } from '../core/webhook-message.js';
import type { QueuedEvent } from './delivery-queue.js';

/** The span of one attempt of `job` to `url`; its `trace` is what the attempt sends. */
export function attemptSpan(tracing: Tracing | undefined, url: URL, job: QueuedEvent): TracedSpan {
  if (!tracing) return startSpan(undefined, { name: 'POST', kind: SPAN_KIND.client, parent: job.trace });
  const https = url.protocol === 'https:';
  return startSpan(tracing, {
    name: 'POST',
    kind: SPAN_KIND.client,
    parent: job.trace,
    attributes: {
      'http.request.method': 'POST',
      'server.address': url.hostname,
      'server.port': Number(url.port || (https ? 443 : 80)),
      'url.scheme': https ? 'https' : 'http',
      'webhook.id': job.id,
      'webhook.attempt': job.attemptsMade + 1,
      ...(job.attemptsMade > 0 ? { 'http.request.resend_count': job.attemptsMade } : {}),
    },
  });
}

/** Ends an attempt's span with its outcome: the status, and `error.type` (the status, or why there was none) unless delivered. */
export function endAttemptSpan(span: TracedSpan, result: DeliveryResult): void {
  if (result.status !== undefined && span.recording) span.set({ 'http.response.status_code': result.status });
  span.end(result.delivered ? undefined : result.status !== undefined ? String(result.status) : result.reason);
}

/** The span of the relay handing `event` to the queue, child of the event's trace. */
export function relaySpan(tracing: Tracing | undefined, event: WebhookMessage): TracedSpan {
  return startSpan(tracing, { name: 'outbox relay', kind: SPAN_KIND.producer, parent: event.trace, attributes: { 'webhook.id': event.id } });
}
