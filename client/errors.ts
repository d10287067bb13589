/**
 * The one error `resume` throws: the service gave no answer (network failure, timeout, or
 * the caller aborted). Every answer the service does give becomes a `ResumeOutcome` instead.
 */

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

  constructor(
    code: SessionsClientErrorCode,
    message: string,
    options: { cause: unknown; url: string; attempts: number },
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.url = options.url;
    this.attempts = options.attempts;
  }
}

/**
 * Why no (whole) answer arrived, the one rule for a request and for its body: the caller's signal
 * aborted, else the attempt's deadline passed, else the network failed (refused, reset, DNS, CORS).
 *
 * @example failureCode(error, { callerAborted: signal.aborted, timedOut: false }) // 'network'
 */
export function failureCode(error: unknown, state: { callerAborted: boolean; timedOut: boolean }): SessionsClientErrorCode {
  if (state.callerAborted) return 'aborted';
  if (state.timedOut || (error as { name?: unknown } | null)?.name === 'TimeoutError') return 'timeout';
  return 'network';
}

/** A short description of a fetch failure, e.g. "fetch failed (ECONNREFUSED)": adds Node's `cause.code` or `cause.message` when present. */
export function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = typeof cause?.code === 'string' ? cause.code : cause?.message;
  return typeof detail === 'string' && detail ? `${error.message} (${detail})` : error.message;
}
