/**
 * The rules `watch` grades traffic by, in report order: the shapes of the contract, then the
 * behaviour it states for the resume API and for webhook deliveries. A finding names one rule;
 * each drift is named by exactly one rule (the shape rules leave to the behaviour rules what
 * those own: Retry-After, the rate-limit fields, the not_paused answer, webhook-signature).
 */
import { RESUME_RETRY_POLICY, WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';

/** The rules, each with the sentence a report shows. */
export const WATCH_RULES = [
  { id: 'request-shape', title: 'A request the contract refuses is never answered 2xx' },
  { id: 'response-shape', title: 'Every answer has a declared status, its declared headers and, when 2xx, its declared body' },
  { id: 'outcome', title: 'Every answer is one of its operation’s outcomes: an answer in the error shape comes only with a status that declares it' },
  { id: 'error-shape', title: 'Every error answer is JSON in its declared shape (Error)' },
  { id: 'not-paused', title: 'An answer carrying not_paused has the declared not_paused status and error' },
  { id: 'idempotent-replay', title: 'A repeated Idempotency-Key gets the recorded answer with Idempotent-Replayed: true' },
  {
    id: 'retry-after',
    title: `A ${RESUME_RETRY_POLICY.retryAfter.statuses.join(' or ')} answer carries Retry-After where the contract requires it, always readable`,
  },
  { id: 'rate-limit-headers', title: 'RateLimit and RateLimit-Policy, when sent, come together, readable and within the limit' },
  { id: 'webhook-shape', title: 'Every delivery is a POST of a SessionEvent with well-formed webhook-id and webhook-timestamp' },
  { id: 'webhook-signature', title: 'Every delivery carries a webhook-signature that verifies with the secret' },
  {
    id: 'webhook-id-stable',
    title: `Every attempt of one event (${WEBHOOK_DELIVERY_POLICY.dedupe.identity.join(', ')}) carries the same ${WEBHOOK_DELIVERY_POLICY.dedupe.idHeader}`,
  },
  { id: 'attempt-spacing', title: 'Attempts of one event are no closer than the delivery schedule and the receiver’s Retry-After' },
  { id: 'webhook-timestamp', title: `webhook-timestamp is within ${WEBHOOK_DELIVERY_POLICY.signature.toleranceMs / 1000} s of the time of the attempt` },
] as const;

/** The id of a rule. */
export type WatchRuleId = (typeof WATCH_RULES)[number]['id'];

/** One rule applied to one exchange: `fault` says what is wrong, absent when the rule held. */
export interface Finding {
  rule: WatchRuleId;
  fault?: string;
}
