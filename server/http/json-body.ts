/**
 * JSON body parsing whose failures wait until after authentication, so that an
 * unauthenticated caller gets 401 whatever body it sends (x-decisions: unauthorized).
 */
import express, { type Request, type RequestHandler } from 'express';

const deferred = new WeakMap<Request, unknown>();

/** Body limit of every request: 100 KB (x-decisions: request-body). */
export const BODY_LIMIT = '100kb';

/**
 * Parses `application/json` bodies (objects and arrays only, up to `limit`, default 100 KB).
 * No body, or an empty one, leaves `req.body` undefined (x-decisions: request-body). A parse
 * failure is kept for `raiseBodyError`.
 */
export function parseJsonBody(limit: string = BODY_LIMIT): RequestHandler {
  const parse = express.json({ limit, strict: true });
  return (req, res, next) => {
    // The common case, a resume without a body: nothing to read, and body-parser would only
    // come back with {} after a round of stream events (15 % of the resume path's CPU).
    if (isEmptyBody(req)) {
      req.body = undefined;
      return next();
    }
    parse(req, res, (err?: unknown) => {
      if (err) deferred.set(req, err);
      // An empty body parses to {} in body-parser; treat it like no body at all.
      else if (isEmptyObject(req.body) && Number(req.headers['content-length'] ?? 0) === 0) req.body = undefined;
      next();
    });
  };
}

/** Raises the kept body failure (400, 413, 415), to be mounted after the security check. */
export const raiseBodyError: RequestHandler = (req, _res, next) => {
  next(deferred.get(req));
};

/**
 * No body, or a declared empty one (Content-Length 0 or absent, not chunked, not encoded), whose media type is
 * absent or plain application/json: the cases where body-parser would give no body or {}
 * and no error. Anything else still goes through body-parser (415 for an unsupported charset).
 */
function isEmptyBody(req: Request): boolean {
  const h = req.headers;
  const length = h['content-length'];
  if ((length !== undefined && length !== '0') || h['transfer-encoding'] !== undefined || h['content-encoding'] !== undefined) return false;
  const type = h['content-type'];
  return type === undefined || /^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type);
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}
