/** CORS for browser frontends (`CORS_ORIGINS`), off unless origins are configured. */
import type { RequestHandler } from 'express';

/** Seconds a browser may cache a preflight answer (10 minutes). */
const MAX_AGE_S = 600;

/**
 * Allows the listed origins (exact `scheme://host[:port]`, or `*` for any) to call the API
 * with the `Authorization` and `Content-Type` headers. Answers preflights (OPTIONS with
 * `Access-Control-Request-Method`) with 204 before any other middleware, so they need no token.
 */
export function createCors(origins: readonly string[]): RequestHandler {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (!origin || !(any || allowed.has(origin))) return next();
    res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
    res.append('Vary', 'Origin');
    // Browser clients read the rate-limit fields too (x-decisions: cors-headers).
    res.setHeader('Access-Control-Expose-Headers', 'Retry-After, WWW-Authenticate, X-Request-Id, RateLimit, RateLimit-Policy');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
      res.setHeader('Access-Control-Max-Age', String(MAX_AGE_S));
      res.status(204).end();
      return;
    }
    next();
  };
}
