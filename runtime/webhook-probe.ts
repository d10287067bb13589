/**
 * The probe `webhook check` sends to test a receiver end to end. The receiver kit acknowledges it
 * (`probe: true`) after the usual checks without recording it; others ignore an unknown event kind.
 */
import type { SessionEvent } from './types.js';

/** The `event` value of the probe. */
export const WEBHOOK_PROBE_EVENT = 'webhook.probe';
/** The `session.id` of the probe. */
export const WEBHOOK_PROBE_SESSION_ID = 'sess_webhook_probe';

/**
 * A probe event stamped `now`.
 * @example await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(createProbeEvent()) });
 */
export function createProbeEvent(now: Date = new Date()): SessionEvent {
  return { event: WEBHOOK_PROBE_EVENT, session: { id: WEBHOOK_PROBE_SESSION_ID }, timestamp: now.toISOString() };
}

/** True for a probe (by its `event` value alone). */
export function isProbeEvent(event: { readonly event?: unknown }): boolean {
  return event.event === WEBHOOK_PROBE_EVENT;
}
