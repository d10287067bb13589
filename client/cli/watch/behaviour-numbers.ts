/**
 * The behaviour numbers `watch` checks traffic against, in one place: which answers must carry
 * Retry-After, the delivery schedule, how far a `webhook-timestamp` may be from the clock, and
 * the payload fields that identify one event (x-decisions: rate-limit, webhook-retry,
 * webhook-signing, event-payload-forms).
 */
import { STANDARD_WEBHOOKS_SCHEDULE_MS } from '@session-resume-api/runtime/delivery/retry-rules';
import { SIGNATURE_TOLERANCE_SECONDS } from '../../webhooks/verify-signature.js';

/** The numbers the behaviour rules of `watch` use. */
export interface WatchBehaviour {
  /** Statuses of a resume answer that must carry Retry-After. */
  retryAfterStatuses: readonly number[];
  /** Delay before each delivery attempt of one event, in ms, the first included. */
  deliveryScheduleMs: readonly number[];
  /** Seconds a `webhook-timestamp` may be away from the time the delivery was seen. */
  timestampToleranceSeconds: number;
  /** Payload fields (dotted paths) that together identify one event across its attempts. */
  eventIdentity: readonly string[];
}

/** The service's behaviour as the contract states it. */
export const WATCH_BEHAVIOUR: WatchBehaviour = {
  retryAfterStatuses: [429, 503],
  deliveryScheduleMs: STANDARD_WEBHOOKS_SCHEDULE_MS,
  timestampToleranceSeconds: SIGNATURE_TOLERANCE_SECONDS,
  eventIdentity: ['event', 'session.id', 'timestamp'],
};
