/** The contract's behaviour numbers (`x-retry-policy`, `x-delivery-policy`), generated from spec/openapi.yaml. Browser-safe. */
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

/** Any policy of `RESUME_RETRY_POLICY`'s shape, so a test or grader can hand the rules another. */
export type ResumeRetryPolicy = Widened<typeof RESUME_RETRY_POLICY>;

/** Any delivery policy of the shape of `WEBHOOK_DELIVERY_POLICY`. */
export type WebhookDeliveryPolicy = Widened<typeof WEBHOOK_DELIVERY_POLICY>;
