/**
 * The one error both packages throw when a store does not answer: the service's session store
 * (rendered as 503 service_unavailable) and a receiver's event store (answered 503, so the sender
 * retries). `cause` holds why.
 */

/** Options of `StoreUnavailableError`. */
export interface StoreUnavailableErrorOptions {
  /**
   * The underlying failure.
   * @defaultValue none: no `cause`
   */
  cause?: unknown;
  /**
   * Whether the command may still have run: true for a timeout or a lost connection (its effect
   * is unknown: x-decisions: resume-unavailable-outcome), false when it surely did not run.
   * @defaultValue `true`
   */
  outcomeUnknown?: boolean;
}

/**
 * The store could not record or read. `outcomeUnknown` is true when the command may still have
 * run (a timeout), false when it surely did not (refused before sending).
 *
 * @example
 * if (error instanceof StoreUnavailableError && !error.outcomeUnknown) retryAtOnce();
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  /** True when the command may still have run (see `StoreUnavailableErrorOptions.outcomeUnknown`). */
  outcomeUnknown: boolean;

  constructor(message: string, options: StoreUnavailableErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.outcomeUnknown = options.outcomeUnknown ?? true;
  }
}
