/** The one error `resume` throws: no answer at all. Every answer the service gives becomes a `ResumeOutcome`. */

/** Why no answer arrived: `network` (refused, reset, DNS, CORS), `timeout`, or `aborted` by the caller's signal. */
export type SessionsClientErrorCode = 'network' | 'timeout' | 'aborted';

/** Thrown when the service gave no answer; `cause` holds the underlying fetch or abort error. */
export class SessionsClientError extends Error {
  override name = 'SessionsClientError';
  /** What went wrong, for programmatic handling. */
  readonly code: SessionsClientErrorCode;
  /** The URL that was requested. */
  readonly url: string;
  /** How many requests were sent (1 + retries) before giving up. */
  readonly attempts: number;

  constructor(code: SessionsClientErrorCode, message: string, options: { cause: unknown; url: string; attempts: number }) {
    super(message, { cause: options.cause });
    this.code = code;
    this.url = options.url;
    this.attempts = options.attempts;
  }
}

/**
 * The one rule for a request and its body: caller aborted, else deadline passed, else network.
 * @example failureCode(error, { callerAborted: signal.aborted, timedOut: false }) // 'network'
 */
export function failureCode(error: unknown, state: { callerAborted: boolean; timedOut: boolean }): SessionsClientErrorCode {
  if (state.callerAborted) return 'aborted';
  if (state.timedOut || (error as { name?: unknown } | null)?.name === 'TimeoutError') return 'timeout';
  return 'network';
}

/** e.g. "fetch failed (ECONNREFUSED)": adds Node's `cause.code` or `cause.message`. */
export function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = typeof cause?.code === 'string' ? cause.code : cause?.message;
  return typeof detail === 'string' && detail ? `${error.message} (${detail})` : error.message;
}
