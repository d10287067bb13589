/** A session store's backend failures: the only errors a store throws (spec outcomes are values); rendered as 503. */
import { StoreUnavailableError } from '@session-resume-api/runtime/store-unavailable-error';

/**
 * The backend did not answer; `outcomeUnknown` is true when the command may still have run (a
 * timeout: x-decisions: resume-unavailable-outcome), false when it surely did not.
 */
export { StoreUnavailableError };

/**
 * The store answers but has lost its sessions (Redis lost its data: the seed marker is gone);
 * `/healthz` answers 503 with this message until the sessions are reseeded.
 */
export class SessionsLostError extends StoreUnavailableError {
  override name = 'SessionsLostError';
  override outcomeUnknown = false;
}
