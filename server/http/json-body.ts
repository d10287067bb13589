/**
 * JSON body parsing whose failures wait until after authentication, so that an
 * unauthenticated caller gets 401 whatever body it sends (x-decisions: unauthorized).
 */
import express, { type Request, type RequestHandler } from 'express';

const deferred = new WeakMap<Request, unknown>();

/** Body limit of every request: 100 KB (issue #3; x-decisions: request-body). */
export const BODY_LIMIT = '100kb';

/**
 * Parses `application/json` bodies (objects and arrays only, up to `limit`, default 100 KB).
 * No body, or an empty one, leaves `req.body` undefined (x-decisions: request-body). A parse
 * failure is kept for `raiseBodyError`.
 */
export function parseJsonBody(limit: string = BODY_LIMIT): RequestHandler {
  const parse = express.json({ limit, strict: true });
  return (req, res, next) => {
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

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}
