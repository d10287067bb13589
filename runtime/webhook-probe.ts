/**
 * The probe: a session event that `session-resume-api webhook check` sends to test a receiver
 * end to end (URL, TLS, token, signature, answer time). The receiver kit acknowledges it with
 * 200 `{ received: true, duplicate: false, probe: true }` after the same checks as any
 * delivery, and neither records it nor calls `onEvent`. Any other receiver sees an event kind
 * it does not know (x-decisions: event-kinds) and should ignore it.
 */
import type { SessionEvent } from './types.js';

/** The `event` value of the probe. */
export const WEBHOOK_PROBE_EVENT = 'webhook.probe';
/** The `session.id` of the probe. */
export const WEBHOOK_PROBE_SESSION_ID = 'sess_webhook_probe';

/**
 * A probe event with the current time as its timestamp.
 *
 * @param [now=new Date()] - the timestamp to put in
 * @example
 * await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(createProbeEvent()) });
 */
export function createProbeEvent(now: Date = new Date()): SessionEvent {
  return { event: WEBHOOK_PROBE_EVENT, session: { id: WEBHOOK_PROBE_SESSION_ID }, timestamp: now.toISOString() };
}

/** True for a probe (by its `event` value alone). */
export function isProbeEvent(event: { readonly event?: unknown }): boolean {
  return event.event === WEBHOOK_PROBE_EVENT;
}
