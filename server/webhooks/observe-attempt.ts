/**
 * One delivery attempt as the engine reports it (`DeliveryAttempt`), and the observer calls
 * that follow it: the same mapping for the in-process sender and the Redis outbox.
 */
import type { DeliveryFailureReason, DeliveryResult } from '../../spec/delivery/deliver-event.js';
import type { SessionEvent } from '../../spec/types.js';
import type { AttemptResult, DeliveryAttempt, DeliveryObserver } from './delivery-types.js';

/** How much of the receiver's answer an attempt keeps, in UTF-16 code units (about 1 kB). */
export const ATTEMPT_RESPONSE_CHARS = 1024;

const RESULT_OF: Record<DeliveryFailureReason, AttemptResult> = {
  bad_status: 'http_status',
  redirect: 'http_status',
  timeout: 'timeout',
  dns_failed: 'network',
  connection_failed: 'network',
  tls_failed: 'network',
  invalid_url: 'refused',
  blocked_address: 'refused',
};

/** The attempt record of `result`, started at `at`. */
export function toDeliveryAttempt(result: DeliveryResult, at: Date): DeliveryAttempt {
  const body = result.response?.body;
  return {
    at: at.toISOString(),
    result: result.delivered ? 'delivered' : RESULT_OF[result.reason],
    ...(result.status === undefined ? {} : { status: result.status }),
    durationMs: result.durationMs,
    ...(body ? { response: body.slice(0, ATTEMPT_RESPONSE_CHARS) } : {}),
  };
}

/**
 * Tells `observer` about one attempt of `event`, and, when it was delivered, the seconds since
 * the event's creation (its `timestamp`). Never throws: metrics must not stop a delivery.
 */
export function observeAttempt(observer: DeliveryObserver | undefined, event: SessionEvent, result: DeliveryResult, at: Date): void {
  if (!observer) return;
  try {
    observer.attempt?.(toDeliveryAttempt(result, at));
    const created = Date.parse(event.timestamp);
    if (result.delivered && Number.isFinite(created)) observer.delivered?.((Date.now() - created) / 1000);
  } catch {
    // An observer that throws breaks its own contract; the delivery goes on.
  }
}
