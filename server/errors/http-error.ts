/** An answer the server decides to give as an error, rendered with the spec's Error body. */

/** Machine codes of the Error body (spec: components.schemas.Error, x-decisions: error-body). */
export type ErrorCode =
  | 'unauthorized'
  | 'not_found'
  | 'not_paused'
  | 'rate_limited'
  | 'bad_request'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'header_too_large'
  | 'service_unavailable'
  | 'internal_error'
  | 'idempotency_key_in_use'
  | 'idempotency_key_reused'
  // The sandbox control API only (spec/sandbox.yaml, x-decisions: sandbox-session-limit).
  | 'sandbox_world_full';

/** An error with its HTTP status, Error code, message safe to show, and extra response headers. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
