/** Thrown by both packages' stores when the backend does not answer (a session store's 503, a receiver's 503). */

/** Options of `StoreUnavailableError`. */
export interface StoreUnavailableErrorOptions {
  /**
   * The underlying failure.
   * @defaultValue none: no `cause`
   */
  cause?: unknown;
  /**
   * Whether the command may still have run: true for a timeout or a lost connection (x-decisions:
   * resume-unavailable-outcome), false when it surely did not.
   * @defaultValue `true`
   */
  outcomeUnknown?: boolean;
}

/**
 * The store could not record or read.
 * @example if (error instanceof StoreUnavailableError && !error.outcomeUnknown) retryAtOnce();
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  /** True when the command may still have run. */
  outcomeUnknown: boolean;

  constructor(message: string, options: StoreUnavailableErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.outcomeUnknown = options.outcomeUnknown ?? true;
  }
}
