/**
 * The checks of an API request that neither express's routing nor the validator make, in one
 * fixed order with them (x-decisions: request-checks): the HTTP framing (a Host header, one
 * Authorization header), then whether the path is one of the document's (404 otherwise,
 * x-decisions: unknown-paths), then the API key; the rate limit; then express routes the exact
 * path and the method; on the resume route the body's declared type and length come before a byte
 * of it is read (no `100 Continue` before the key and the length passed).
 */
import type { Request, RequestHandler } from 'express';
import { HttpError } from '../errors/http-error.js';
import type { ApiPathMatcher } from './api-paths.js';
import { sendContinue } from './expect-continue.js';

/** Options of `createRequestGuard`. */
export interface RequestGuardOptions {
  /** The request's API key id, or undefined when its bearer token is not a key (`createAuthentication`). */
  authenticate: (req: Request) => string | undefined;
  /** Whether a path is one of the document's (`createApiPathMatcher`); only those need a key. */
  isApiPath: ApiPathMatcher;
}

/** Options of `createBodyCheck`. */
export interface BodyCheckOptions {
  /**
   * Largest accepted Content-Length in bytes.
   * @defaultValue 102 400, the body limit of x-decisions: request-body
   */
  maxBodyBytes?: number;
  /**
   * Reads a declared body (`parseJsonBody()`); a request that declares none (no
   * Transfer-Encoding, Content-Length absent or 0) never reaches it and keeps `req.body` undefined.
   * @defaultValue none: the next handler reads the body
   */
  parser?: RequestHandler;
}

const MESSAGES = {
  noHost: 'The request has no Host header, which HTTP/1.1 requires.',
  twoAuthorizations: 'The request has more than one Authorization header: send exactly one, Authorization: Bearer <API_KEY>.',
  notFound: 'No operation at this path.',
  method: 'Method not allowed on this path: use POST.',
  tooLarge: 'The request body is larger than 100 KB.',
} as const;

/**
 * The first layer of every API request, before any route: the HTTP framing, then the path, then
 * the API key (x-decisions: request-checks, unknown-paths). A path the document does not
 * describe gets 404 without a key, judged by its shape alone, so it reveals no session; on the
 * document's paths a caller without a valid key learns nothing but 401, whatever method, id or
 * body it sends. Failures go to the error renderer as `HttpError`s.
 *
 * @example app.use(createRequestGuard({ authenticate, isApiPath: createApiPathMatcher(Object.keys(document.paths)) }));
 */
export function createRequestGuard(options: RequestGuardOptions): RequestHandler {
  return (req, _res, next) => {
    if (req.httpVersion === '1.1' && !req.headers.host) return next(new HttpError(400, 'bad_request', MESSAGES.noHost));
    if (countHeader(req, 'authorization') > 1) return next(new HttpError(400, 'bad_request', MESSAGES.twoAuthorizations));
    if (!options.isApiPath(req.path)) return next(new HttpError(404, 'not_found', MESSAGES.notFound));
    if (options.authenticate(req) === undefined) return next(new HttpError(401, 'unauthorized', 'Unauthorized.'));
    next();
  };
}

/**
 * The first handler of the resume route: the body as announced by its headers, judged before a
 * byte of it is read, then the pending `100 Continue` (RFC 9110 §10.1.1), then the parser for a
 * declared body only: the headers were read once here, so the parser is not run to find that
 * an empty body is empty.
 *
 * @example app.post(RESUME_ROUTE, createBodyCheck({ parser: express.json() }), ...);
 */
export function createBodyCheck(options: BodyCheckOptions = {}): RequestHandler {
  const { maxBodyBytes = 102_400, parser } = options;
  return (req, res, next) => {
    const declared = checkDeclaredBody(req, maxBodyBytes);
    if (declared instanceof HttpError) return next(declared);
    sendContinue(req, res);
    if (declared === 'body' && parser) return parser(req, res, next);
    next();
  };
}

/** Any method but POST on the resume route: 405 with `Allow: POST`. */
export const methodNotAllowed: RequestHandler = (_req, _res, next) =>
  next(new HttpError(405, 'method_not_allowed', MESSAGES.method, { Allow: 'POST' }));

/** The catch-all after every route: an Error body, never express's HTML page. */
export const notFound: RequestHandler = (_req, _res, next) => next(new HttpError(404, 'not_found', MESSAGES.notFound));

/** How many times a header occurs (Node keeps only the first Authorization in `req.headers`). */
function countHeader(req: Request, name: string): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]?.toLowerCase() === name) count++;
  return count;
}

/**
 * The body as announced by the headers: none, or JSON within the limit (x-decisions:
 * request-body). A body without a Content-Type, or with an unreadable one, is refused (415)
 * rather than ignored.
 */
function checkDeclaredBody(req: Request, maxBodyBytes: number): HttpError | 'body' | 'none' {
  const length = Number(req.headers['content-length'] ?? 0);
  const hasBody = req.headers['transfer-encoding'] !== undefined || length > 0;
  if (!hasBody) return 'none';
  if (length > maxBodyBytes) return new HttpError(413, 'payload_too_large', MESSAGES.tooLarge);
  // type-is, as the JSON parser uses it: an unreadable Content-Type never matches, so its body would be ignored.
  if (req.is('application/json') === 'application/json') return 'body';
  return new HttpError(415, 'unsupported_media_type', unsupportedMediaTypeMessage(req.headers['content-type']));
}

/**
 * The 415 message, the same wording as the spec's example: names the media type when it is
 * a plain `type/subtype` token, and says so when the header is missing or unreadable.
 */
export function unsupportedMediaTypeMessage(contentType: string | undefined): string {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  const named = contentType === undefined ? ' (no Content-Type)' : /^[\w.+-]+\/[\w.+-]+$/.test(type) ? ` ${type}` : ' (unreadable Content-Type)';
  return `Unsupported media type${named}: send application/json or no body.`;
}
