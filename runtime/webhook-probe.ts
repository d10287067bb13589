/** The probe `webhook check` sends: the receiver kit acknowledges it (`probe: true`) after the usual checks, never recording it. */
import type { SessionEvent } from './types.js';

/** The `event` value of the probe. */
export const WEBHOOK_PROBE_EVENT = 'webhook.probe';
/** The `session.id` of the probe. */
export const WEBHOOK_PROBE_SESSION_ID = 'sess_webhook_probe';

/** A probe event stamped `now`. */
export function createProbeEvent(now: Date = new Date()): SessionEvent {
  return { event: WEBHOOK_PROBE_EVENT, session: { id: WEBHOOK_PROBE_SESSION_ID }, timestamp: now.toISOString() };
}

/** True for a probe (by its `event` value alone). */
export function isProbeEvent(event: { readonly event?: unknown }): boolean {
  return event.event === WEBHOOK_PROBE_EVENT;
}
