/** Per-API-key rate limit (x-decisions: rate-limit): 429 with Retry-After in whole seconds. */
import type { Request, RequestHandler } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import { HttpError } from '../errors/http-error.js';

/** Rate limit settings: at most `limit` requests per API key per `windowMs` (ms). */
export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  /** Where hits are counted (default: this process's memory; Redis via createRedisRateLimitStore). */
  store?: Store;
}

/** Checks rate limit options; throws a TypeError that names the bad field. */
export function checkRateLimitOptions(options: RateLimitOptions): void {
  if (!Number.isInteger(options.limit) || options.limit < 1) throw new TypeError('rateLimit.limit must be an integer >= 1.');
  if (!Number.isInteger(options.windowMs) || options.windowMs < 1) {
    throw new TypeError('rateLimit.windowMs must be an integer >= 1 (milliseconds).');
  }
}

/**
 * Counts requests by `keyOf(req)` (the authenticated API key's id, so it must run after the
 * bearer check) and answers 429 `rate_limited` with `Retry-After` (RFC 9110 §10.2.3).
 * Store failures reach the error handler (503).
 */
export function createRateLimit(options: RateLimitOptions, keyOf: (req: Request) => string): RequestHandler {
  checkRateLimitOptions(options);
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    standardHeaders: false,
    legacyHeaders: false,
    passOnStoreError: false,
    keyGenerator: keyOf,
    // Our keys are API key ids, not IPs; the IP-related checks do not apply.
    validate: false,
    ...(options.store ? { store: options.store } : {}),
    handler: (req, _res, next) => {
      const info = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit;
      const reset = info?.resetTime?.getTime() ?? Date.now() + options.windowMs;
      const seconds = Math.max(1, Math.ceil((reset - Date.now()) / 1000));
      next(
        new HttpError(429, 'rate_limited', `Too many requests for this API key; retry after ${seconds} seconds.`, {
          'Retry-After': String(seconds),
        }),
      );
    },
  });
}
