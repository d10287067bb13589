/** The dedupe key of a session event (x-decisions: event-timestamp). */
import { hash } from 'node:crypto';
import type { SessionEvent } from './types.js';

/**
 * sha256 hex of `event`, `session.id` and `timestamp` exactly as sent (the timestamp is never
 * parsed or normalised: its format is open). JSON-encoding the triple keeps field
 * boundaries unambiguous. Hex has no `:`, so the key is usable as a BullMQ id.
 */
export function dedupeKey(event: Pick<SessionEvent, 'event' | 'session' | 'timestamp'>): string {
  const triple = JSON.stringify([event.event, event.session.id, event.timestamp]);
  // One-shot hash: half the cost of createHash().update().digest() on the ack path.
  return hash('sha256', triple, 'hex');
}
