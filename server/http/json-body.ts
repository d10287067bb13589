/** The request body limit and its parser, express's own (`express.json`, body-parser). */
import express, { type RequestHandler } from 'express';

/** Body limit of every request: 100 KB (x-decisions: request-body). */
export const BODY_LIMIT = '100kb';

/**
 * Parses `application/json` bodies: objects and arrays only, up to 100 KB. No body leaves
 * `req.body` undefined (x-decisions: request-body); failures are body-parser's errors, which
 * the error renderer answers 400, 413 or 415.
 *
 * @example app.post(RESUME_ROUTE, parseJsonBody(), handler);
 */
export const parseJsonBody = (): RequestHandler => express.json({ limit: BODY_LIMIT, strict: true });
