/**
 * The behaviour the contract states, read from spec/openapi.yaml at `npm run generate`:
 * `RESUME_RETRY_POLICY` (the resume operation's `x-retry-policy`) and `WEBHOOK_DELIVERY_POLICY`
 * (the session webhook's `x-delivery-policy`). Rule modules take their numbers from here and
 * hold logic only. Browser-safe: frozen data, no I/O.
 */
import { RESUME_RETRY_POLICY, WEBHOOK_DELIVERY_POLICY } from '../generated/behaviour.js';

export { RESUME_RETRY_POLICY, WEBHOOK_DELIVERY_POLICY };

/** The type of `RESUME_RETRY_POLICY`: every value a literal. */
export type ResumeRetryPolicy = typeof RESUME_RETRY_POLICY;

/** The type of `WEBHOOK_DELIVERY_POLICY`: every value a literal. */
export type WebhookDeliveryPolicy = typeof WEBHOOK_DELIVERY_POLICY;
