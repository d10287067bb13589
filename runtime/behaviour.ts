/**
 * The behaviour the contract states, read from spec/openapi.yaml at `npm run generate`:
 * `RESUME_RETRY_POLICY` (the resume operation's `x-retry-policy`) and `WEBHOOK_DELIVERY_POLICY`
 * (the session webhook's `x-delivery-policy`). Rule modules take their numbers from here and
 * hold logic only. Browser-safe: frozen data, no I/O.
 */
import { RESUME_RETRY_POLICY, WEBHOOK_DELIVERY_POLICY } from '../generated/behaviour.js';

export { RESUME_RETRY_POLICY, WEBHOOK_DELIVERY_POLICY };

/** A literal type widened to its kind (429 → number, "retry" → string), read-only all the way down. */
export type Widened<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends readonly (infer Item)[]
        ? readonly Widened<Item>[]
        : { readonly [K in keyof T]: Widened<T[K]> };

/**
 * Any retry policy of the shape of `RESUME_RETRY_POLICY`: what the rules take, so that a test or
 * a grader can hand them another one.
 */
export type ResumeRetryPolicy = Widened<typeof RESUME_RETRY_POLICY>;

/** Any delivery policy of the shape of `WEBHOOK_DELIVERY_POLICY`. */
export type WebhookDeliveryPolicy = Widened<typeof WEBHOOK_DELIVERY_POLICY>;
