/**
 * The resume retry policy `client grade` holds a client to, and the one place the grader reads
 * its numbers from: the typed client's own settings (client/retry.ts, client/sessions-client.ts).
 */
import { RETRYABLE_STATUSES } from '../../retry.js';
import { DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_DELAY_MS, DEFAULT_TIMEOUT_MS } from '../../sessions-client.js';

/** What a client resuming a session may retry, how long it waits and when it stops. */
export interface ResumeRetryPolicy {
  /** Answers worth another attempt; every other status is an outcome to report. */
  retryableStatuses: readonly number[];
  /** Whether a request that got no answer (refused, reset) is tried again. */
  retryNetworkFailures: boolean;
  /** Most attempts of one resume, the first included. */
  maxAttempts: number;
  /** Longest wait between attempts, in ms; a Retry-After asking for more may end the retries. */
  maxRetryDelayMs: number;
  /** Deadline of one attempt, in ms: an answer not complete by then is abandoned. */
  attemptTimeoutMs: number;
}

/** The policy of the resume operation. */
export const RESUME_RETRY_POLICY: ResumeRetryPolicy = {
  retryableStatuses: [...RETRYABLE_STATUSES],
  retryNetworkFailures: true,
  maxAttempts: DEFAULT_MAX_RETRIES + 1,
  maxRetryDelayMs: DEFAULT_MAX_RETRY_DELAY_MS,
  attemptTimeoutMs: DEFAULT_TIMEOUT_MS,
};
