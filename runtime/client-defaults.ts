/**
 * The typed client's defaults, read from `x-retry-policy`: the client applies them and the
 * command's help shows them, so both say the same numbers. Browser-safe.
 */
import { RESUME_RETRY_POLICY } from './behaviour.js';

/** Per-attempt deadline in ms, sending to end of body: x-retry-policy `attempts.attemptTimeoutMs`. */
export const DEFAULT_TIMEOUT_MS = RESUME_RETRY_POLICY.attempts.attemptTimeoutMs;
/** Default retries after the first attempt: x-retry-policy `attempts.max` less the first. */
export const DEFAULT_MAX_RETRIES = RESUME_RETRY_POLICY.attempts.max - 1;
/** Default longest wait between attempts, in ms: the Retry-After cap, x-retry-policy `retryAfter.maxMs`. */
export const DEFAULT_MAX_RETRY_DELAY_MS = RESUME_RETRY_POLICY.retryAfter.maxMs;
