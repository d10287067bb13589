/**
 * Per-API-key rate limit (x-decisions: rate-limit, rate-limit-headers): 429 with Retry-After in
 * whole seconds, and the IETF RateLimit / RateLimit-Policy fields on every counted answer.
 */
import type { Request, RequestHandler } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import { HttpError } from '../errors/http-error.js';

/** Longest window: one day, so that Retry-After and the `t=` of RateLimit stay within 86400 s (the spec's bound). */
export const MAX_WINDOW_MS = 86_400_000;

/** Rate limit settings: at most `limit` requests per API key per `windowMs` (ms, 1 to 86 400 000). */
export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  /** Where hits are counted (default: this process's memory; Redis via createRedisRateLimitStore). */
  store?: Store;
}

/** Checks rate limit options; throws a TypeError that names the bad field. */
export function checkRateLimitOptions(options: RateLimitOptions): void {
  if (!Number.isInteger(options.limit) || options.limit < 1) throw new TypeError('rateLimit.limit must be an integer >= 1.');
  if (!Number.isInteger(options.windowMs) || options.windowMs < 1 || options.windowMs > MAX_WINDOW_MS) {
    throw new TypeError(`rateLimit.windowMs must be an integer from 1 to ${MAX_WINDOW_MS} (milliseconds, at most one day).`);
  }
}

/**
 * Counts requests by `keyOf(req)` (the authenticated API key's id, so it must run after the
 * bearer check) and answers 429 `rate_limited` with `Retry-After` (RFC 9110 §10.2.3). Every
 * counted answer carries `RateLimit: "<policy>"; r=<remaining>; t=<s>` and `RateLimit-Policy:
 * "<policy>"; q=<limit>; w=<s>; pk=<key hash>` (express-rate-limit's draft-8, the form of
 * draft-ietf-httpapi-ratelimit-headers-08 and later). Store failures reach the error handler (503).
 *
 * @example
 * app.use(createRateLimit({ limit: 100, windowMs: 60_000 }, (req) => keyIdOf(req)));
 */
export function createRateLimit(options: RateLimitOptions, keyOf: (req: Request) => string): RequestHandler {
  checkRateLimitOptions(options);
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    passOnStoreError: false,
    keyGenerator: keyOf,
    // Our keys are API key ids, not IPs; the IP-related checks do not apply.
    validate: false,
    ...(options.store ? { store: options.store } : {}),
    handler: (req, _res, next) => {
      const info = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit;
      const reset = info?.resetTime?.getTime() ?? Date.now() + options.windowMs;
      const seconds = Math.min(MAX_WINDOW_MS / 1000, Math.max(1, Math.ceil((reset - Date.now()) / 1000)));
      next(
        new HttpError(429, 'rate_limited', `Too many requests for this API key; retry after ${seconds} seconds.`, {
          'Retry-After': String(seconds),
        }),
      );
    },
  });
}

