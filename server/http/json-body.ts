import express, { type RequestHandler } from 'express';

/** Body limit of every request: 100 KB (x-decisions: request-body). */
export const BODY_LIMIT = '100kb';

/**
 * Parses `application/json` bodies, objects and arrays only; no body leaves `req.body` undefined.
 * Failures are body-parser's errors, answered 400, 413 or 415.
 * @example app.post(RESUME_ROUTE, parseJsonBody(), handler);
 */
export const parseJsonBody = (): RequestHandler => express.json({ limit: BODY_LIMIT, strict: true });
