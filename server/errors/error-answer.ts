/**
 * Maps anything thrown in a request to one answer in the spec's Error shape (x-decisions:
 * error-body, store-unavailable). Unknown errors are defects: 500, no details.
 */
import { StoreUnavailableError } from './store-errors.js';
import { HttpError, type ErrorCode } from './http-error.js';
import type { ErrorBody } from '@session-resume-api/runtime/types';

/** A rendered error: status, headers and the Error body; `defect` marks a 500 worth logging loudly. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
  defect: boolean;
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
};

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  payload_too_large: 'The request body is larger than 100 KB.',
  unsupported_media_type: 'Unsupported media type: send application/json or no body.',
  method_not_allowed: 'Method not allowed on this path.',
  not_found: 'No operation at this path.',
};

const BAD_ENCODING = 'The session id in the path is not valid percent-encoding: encode it as one path segment (RFC 3986).';

interface StatusError {
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
  code?: unknown;
  body?: unknown;
  message?: unknown;
  errors?: { path?: string; message?: string }[];
  headers?: Record<string, string>;
}

/** The spec's Error body `{ success: false, error, message }`: every non-2xx answer of the server uses it. */
export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { success: false, error: code, message };
}

const error = (status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}, defect = false) => ({
  status,
  headers,
  body: errorBody(code, message),
  defect,
});

/** Longest message the server sends (Error.message maxLength; x-decisions: text-bounds). */
export const MAX_MESSAGE_LENGTH = 1024;

/**
 * Renders `err` as an Error answer; never a stack or an internal message on a 500, and the message
 * cut to {@link MAX_MESSAGE_LENGTH}. Only the not_paused answer may carry the marker `not_paused`:
 * validator messages can quote the request, and clients search the body text for it.
 */
export function toErrorAnswer(err: unknown): ErrorAnswer {
  const answer = render(err);
  if (answer.body.error !== 'not_paused') answer.body.message = answer.body.message.replace(/not_paused/gi, 'not-paused');
  if (answer.body.message.length > MAX_MESSAGE_LENGTH) answer.body.message = `${answer.body.message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
  return answer;
}

function render(err: unknown): ErrorAnswer {
  if (err instanceof HttpError) return error(err.status, err.code, err.message, err.headers);
  if (err instanceof StoreUnavailableError) {
    return error(503, 'service_unavailable', 'The session store is unavailable; retry later.', { 'Retry-After': '1' });
  }
  // express's router cannot percent-decode a path parameter; its own message quotes the segment.
  if (err instanceof URIError) return error(400, 'bad_request', BAD_ENCODING);
  const e = (typeof err === 'object' && err !== null ? err : {}) as StatusError;
  const status = Number(e.status ?? e.statusCode);
  // body-parser: `type` names the failure (https://github.com/expressjs/body-parser#errors).
  if (e.type === 'entity.parse.failed') return error(400, 'bad_request', parseFailureMessage(e.body));
  const bodyProblem = bodyReadMessage(e);
  if (bodyProblem) return error(400, 'bad_request', bodyProblem);
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
    return error(415, 'unsupported_media_type', 'Unsupported content encoding or charset: send UTF-8 JSON.');
  }
  if (Number.isInteger(status) && status >= 400 && status < 500) {
    const code = CODE_BY_STATUS[status] ?? 'bad_request';
    const detail = e.errors?.length ? e.errors.map((d) => `${requestPart(d.path)} ${d.message ?? ''}`.trim()).join('; ') : undefined;
    const message = code === 'bad_request' ? `Invalid request: ${detail ?? String(e.message ?? 'malformed')}.` : (MESSAGES[code] ?? String(e.message));
    const headers: Record<string, string> = status === 405 && e.headers?.Allow ? { Allow: e.headers.Allow } : {};
    return error(status === 400 || CODE_BY_STATUS[status] ? status : 400, code, message, headers);
  }
  return error(500, 'internal_error', 'Internal server error.', {}, true);
}

/** body-parser's strict mode refuses non-object JSON with the broken-JSON error; the message tells them apart. */
function parseFailureMessage(body: unknown): string {
  if (typeof body === 'string') {
    try {
      JSON.parse(body);
      return 'The request body is JSON but not an object: send {} or no body.';
    } catch {
      // Not JSON at all: the general message below.
    }
  }
  return 'The request body is not valid JSON.';
}

/** Body read failures in the API's words rather than zlib's or raw-body's. */
function bodyReadMessage(e: StatusError): string | undefined {
  if (e.type === 'request.size.invalid') return 'The request body is shorter or longer than its Content-Length.';
  // zlib's codes: Z_DATA_ERROR, Z_BUF_ERROR (gzip, deflate); ERR__ERROR_FORMAT_… (brotli).
  if (typeof e.code === 'string' && /^(Z_|ERR__)/.test(e.code)) {
    return 'The request body cannot be decoded with its Content-Encoding: send identity, gzip, deflate or br, matching the bytes sent.';
  }
  return undefined;
}

/**
 * The part of the request a validator error is about (`/body/x`, `.params.session_id`: names, never
 * values); anything else is dropped so no message repeats the path or its session id (x-decisions: not-paused-status).
 */
function requestPart(path: string | undefined): string {
  return path && /^[./](body|query|headers|params)\b/.test(path) ? path : '';
}
