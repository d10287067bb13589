/** CORS for browser frontends (`CORS_ORIGINS`), off unless origins are configured. */
import type { RequestHandler } from 'express';

/** Seconds a browser may cache a preflight answer (10 minutes). */
const MAX_AGE_S = 600;

const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key'];
/** Answer headers a page may read (x-decisions: cors-headers). */
const EXPOSED_HEADERS = ['Retry-After', 'WWW-Authenticate', 'X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Idempotent-Replayed'];

/** What sandbox mode adds: the control API's methods, request headers such as Prefer, exposed headers. */
export interface CorsExtras {
  methods: string[];
  headers: string[];
  expose: string[];
}

/**
 * Allows the listed origins (exact `scheme://host[:port]`, or `*`). Preflights are answered 204
 * before any other middleware, so they need no token.
 */
export function createCors(origins: readonly string[], extra?: CorsExtras): RequestHandler {
  const methods = extra?.methods.join(', ') ?? 'GET, POST, OPTIONS';
  const headers = [...new Set([...ALLOWED_HEADERS, ...(extra?.headers ?? [])])].join(', ');
  const expose = [...new Set([...EXPOSED_HEADERS, ...(extra?.expose ?? [])])].join(', ');
  const any = origins.includes('*');
  const allowed = new Set(origins);
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (!origin || !(any || allowed.has(origin))) return next();
    res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
    res.append('Vary', 'Origin');
    res.setHeader('Access-Control-Expose-Headers', expose);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.setHeader('Access-Control-Allow-Methods', methods);
      res.setHeader('Access-Control-Allow-Headers', headers);
      res.setHeader('Access-Control-Max-Age', String(MAX_AGE_S));
      res.status(204).end();
      return;
    }
    next();
  };
}
