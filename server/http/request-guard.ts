/**
 * The checks neither express's routing nor the validator make, in their fixed order (x-decisions:
 * request-checks): framing, known path, API key; on the resume route the declared body type and
 * length before a byte is read (no `100 Continue` before the key and the length passed).
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
   * Reads a declared body (`parseJsonBody()`); a request declaring none keeps `req.body` undefined.
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
 * First layer of every request: framing, then path, then API key (x-decisions: request-checks,
 * unknown-paths). An unknown path gets 404 by its shape alone, revealing no session; on the
 * document's paths a caller without a valid key learns nothing but 401.
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
 * First handler of the resume route: the body as its headers announce it, judged before a byte is
 * read, then the pending `100 Continue`, then the parser for a declared body only.
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
export const methodNotAllowed: RequestHandler = (_req, _res, next) => next(new HttpError(405, 'method_not_allowed', MESSAGES.method, { Allow: 'POST' }));

/** The catch-all after every route: an Error body, never express's HTML page. */
export const notFound: RequestHandler = (_req, _res, next) => next(new HttpError(404, 'not_found', MESSAGES.notFound));

/** How many times a header occurs (Node keeps only the first Authorization in `req.headers`). */
function countHeader(req: Request, name: string): number {
  let count = 0;
  // Lengths first: lower-casing every header name of every request is garbage for the collector.
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const raw = req.rawHeaders[i]!;
    if (raw.length === name.length && raw.toLowerCase() === name) count++;
  }
  return count;
}

/** None, or JSON within the limit; a body without a readable Content-Type is refused (415), not ignored. */
function checkDeclaredBody(req: Request, maxBodyBytes: number): HttpError | 'body' | 'none' {
  const length = Number(req.headers['content-length'] ?? 0);
  const hasBody = req.headers['transfer-encoding'] !== undefined || length > 0;
  if (!hasBody) return 'none';
  if (length > maxBodyBytes) return new HttpError(413, 'payload_too_large', MESSAGES.tooLarge);
  // type-is, as the JSON parser uses it: an unreadable Content-Type never matches, so its body would be ignored.
  if (req.is('application/json') === 'application/json') return 'body';
  return new HttpError(415, 'unsupported_media_type', unsupportedMediaTypeMessage(req.headers['content-type']));
}

/** The 415 message, worded as the spec's example: names the media type when it is a plain `type/subtype`. */
export function unsupportedMediaTypeMessage(contentType: string | undefined): string {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  const named = contentType === undefined ? ' (no Content-Type)' : /^[\w.+-]+\/[\w.+-]+$/.test(type) ? ` ${type}` : ' (unreadable Content-Type)';
  return `Unsupported media type${named}: send application/json or no body.`;
}
