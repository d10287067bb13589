/**
 * The failures of a session store's backend: the only errors a store throws (the outcomes the
 * spec names are returned as values). The HTTP layer renders them as 503 (error-answer.ts).
 */
import { StoreUnavailableError } from '@session-resume-api/runtime/store-unavailable-error';

/**
 * The backend did not answer (or answered with a failure); rendered as 503 service_unavailable.
 * `outcomeUnknown` is true when the command may still have run (a timeout: x-decisions:
 * resume-unavailable-outcome), false when it surely did not (refused before sending). The one
 * class of both packages: the receiver's event stores throw it too.
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
