/**
 * The first checks of every request that reaches the API, in one fixed order
 * (x-decisions: request-checks): the HTTP framing (a Host header, one Authorization header),
 * then the API key, and only then the path, the method and the body's declared type and
 * length. So a caller without a valid key learns nothing but 401, whatever it sends, and
 * nothing is read from the body (no `100 Continue`) before the key and the length passed.
 */
import type { Request, RequestHandler, Response } from 'express';
import { parseBearer, type ApiKeyCheck } from '../auth/bearer-auth.js';
import { HttpError } from '../errors/http-error.js';
import { isContinuePending, sendContinue } from './expect-continue.js';

/** Options of `createRequestGuard`. */
export interface RequestGuardOptions {
  /** The API key check (`createApiKeyCheck`). */
  checkKey: ApiKeyCheck;
  /** Largest accepted Content-Length in bytes (default 102 400, the body limit of x-decisions: request-body). */
  maxBodyBytes?: number;
  /** Told the id of the key that passed, for the checks after the guard. */
  onKey?: (req: Request, keyId: string) => void;
  /**
   * Runs right after the key check, before the path, method and body are judged: the rate
   * limit, so every answer to a caller with a valid key counts (x-decisions: rate-limit-headers).
   */
  afterKey?: RequestHandler;
}

/** The one API path, matched exactly: case-sensitive, no trailing slash, one non-empty segment (x-decisions: routing). */
const RESUME_PATH = /^\/v1\/sessions\/([^/]+)\/resume$/;

const MESSAGES = {
  noHost: 'The request has no Host header, which HTTP/1.1 requires.',
  twoAuthorizations: 'The request has more than one Authorization header: send exactly one, Authorization: Bearer <API_KEY>.',
  notFound: 'No operation at this path.',
  badEncoding: 'The session id in the path is not valid percent-encoding: encode it as one path segment (RFC 3986).',
  method: 'Method not allowed on this path: use POST.',
  tooLarge: 'The request body is larger than 100 KB.',
} as const;

/**
 * Builds the guard: the first step of the resume path's pipeline, before the body parser and
 * the validator, and the layer after the operational endpoints (/healthz, /docs) for every
 * other path. Failures go to the error renderer as `HttpError`s.
 *
 * @example app.use(createRequestGuard({ checkKey: createApiKeyCheck(['k1']) }));
 */
export function createRequestGuard(options: RequestGuardOptions): RequestHandler {
  const maxBodyBytes = options.maxBodyBytes ?? 102_400;
  return (req, res, next) => {
    const fail = (error: HttpError) => {
      // A body announced with Expect: 100-continue is never invited: close after the answer.
      if (isContinuePending(req)) res.setHeader('Connection', 'close');
      next(error);
    };
    if (req.httpVersion === '1.1' && !req.headers.host) return fail(new HttpError(400, 'bad_request', MESSAGES.noHost));
    if (countHeader(req, 'authorization') > 1) return fail(new HttpError(400, 'bad_request', MESSAGES.twoAuthorizations));
    const credentials = parseBearer(req.headers.authorization);
    const keyId = credentials.kind === 'token' ? options.checkKey(credentials.token) : undefined;
    if (keyId === undefined) return fail(new HttpError(401, 'unauthorized', 'Unauthorized.'));
    options.onKey?.(req, keyId);
    if (!options.afterKey) return checkRequest(req, res, fail, next, maxBodyBytes);
    void options.afterKey(req, res, (err?: unknown) => (err ? fail(err as HttpError) : checkRequest(req, res, fail, next, maxBodyBytes)));
  };
}

/** Path, method and declared body, once the key passed. */
function checkRequest(req: Request, res: Response, fail: (error: HttpError) => void, next: () => void, maxBodyBytes: number): void {
  const segment = resumeSegment(req);
  if (segment === undefined) return fail(new HttpError(404, 'not_found', MESSAGES.notFound));
  if (!decodes(segment)) return fail(new HttpError(400, 'bad_request', MESSAGES.badEncoding));
  if (req.method !== 'POST') return fail(new HttpError(405, 'method_not_allowed', MESSAGES.method, { Allow: 'POST' }));
  const bodyProblem = checkDeclaredBody(req, maxBodyBytes);
  if (bodyProblem) return fail(bodyProblem);
  sendContinue(req, res);
  next();
}

/** The raw session id segment when the request's path is the resume path exactly (x-decisions: routing), else undefined. */
function resumeSegment(req: Request): string | undefined {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  return RESUME_PATH.exec(query === -1 ? url : url.slice(0, query))?.[1];
}

/** Whether the request's path is the resume path, spelt exactly (x-decisions: routing); any method. */
export function isResumePath(req: Request): boolean {
  return resumeSegment(req) !== undefined;
}

/**
 * The session id of a request the guard let through: its path segment, percent-decoded once.
 * @example app.use((req, _res, next) => ((req.params = { session_id: resumeSessionId(req) }), next()));
 */
export function resumeSessionId(req: Request): string {
  return decodeURIComponent(resumeSegment(req) ?? '');
}

/** The catch-all after every route: an Error body, never express's HTML page. */
export const notFound: RequestHandler = (_req, _res, next) => next(new HttpError(404, 'not_found', MESSAGES.notFound));

/** How many times a header occurs (Node keeps only the first Authorization in `req.headers`). */
function countHeader(req: Request, name: string): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]?.toLowerCase() === name) count++;
  return count;
}

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/**
 * The body as announced by the headers: none, or JSON within the limit (x-decisions:
 * request-body). A body without a Content-Type, or with an unreadable one, is refused (415)
 * rather than ignored.
 */
function checkDeclaredBody(req: Request, maxBodyBytes: number): HttpError | undefined {
  const length = Number(req.headers['content-length'] ?? 0);
  const hasBody = req.headers['transfer-encoding'] !== undefined || length > 0;
  if (!hasBody) return undefined;
  if (length > maxBodyBytes) return new HttpError(413, 'payload_too_large', MESSAGES.tooLarge);
  // type-is, as the JSON parser uses it: an unreadable Content-Type never matches, so its body would be ignored.
  if (req.is('application/json') === 'application/json') return undefined;
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
