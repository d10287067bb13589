/**
 * Per-API-key rate limit (x-decisions: rate-limit, rate-limit-headers): 429 with Retry-After in
 * whole seconds, and the IETF RateLimit / RateLimit-Policy fields on every counted answer.
 */
import type { Request, RequestHandler } from 'express';
import { hash } from 'node:crypto';
import { MemoryStore, type ClientRateLimitInfo, type Options, type Store } from 'express-rate-limit';
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
 * "<policy>"; q=<limit>; w=<s>; pk=:<key hash>:` (express-rate-limit 8's draft-8 fields, the form
 * of draft-ietf-httpapi-ratelimit-headers-08 and later). Store failures reach the error handler (503).
 *
 * The counting is express-rate-limit's store (its `MemoryStore` by default); the middleware is
 * ours: express-rate-limit's awaits six values per request, reads `req.ip` for a debug line
 * that is off, and hashes the key for `pk` on every answer (about 10 µs per request on the
 * resume path, bench/findings.md).
 *
 * @example
 * app.use(createRateLimit({ limit: 100, windowMs: 60_000 }, (req) => keyIdOf(req)));
 */
export function createRateLimit(options: RateLimitOptions, keyOf: (req: Request) => string): RequestHandler {
  checkRateLimitOptions(options);
  const { limit, windowMs } = options;
  const store = options.store ?? new MemoryStore();
  void store.init?.({ windowMs } as Options);
  const policy = `"${policyName(limit, windowMs)}"`;
  const windowSeconds = Math.ceil(windowMs / 1000);
  const partitionKey = memoise(draft8PartitionKey);
  return (req, res, next) => {
    const key = keyOf(req);
    const answer = (counted: ClientRateLimitInfo) => {
      const resetMs = counted.resetTime ? counted.resetTime.getTime() - Date.now() : windowMs;
      if (!res.headersSent) {
        res.setHeader('RateLimit', `${policy}; r=${Math.max(limit - counted.totalHits, 0)}; t=${Math.max(0, Math.ceil(resetMs / 1000))}`);
        res.setHeader('RateLimit-Policy', `${policy}; q=${limit}; w=${windowSeconds}; pk=:${partitionKey(key)}:`);
      }
      if (counted.totalHits <= limit) return next();
      const seconds = Math.min(MAX_WINDOW_MS / 1000, Math.max(1, Math.ceil(resetMs / 1000)));
      next(new HttpError(429, 'rate_limited', `Too many requests for this API key; retry after ${seconds} seconds.`, { 'Retry-After': String(seconds) }));
    };
    try {
      const counted = store.increment(key);
      if (counted instanceof Promise) counted.then(answer, next);
      else answer(counted);
    } catch (err) {
      next(err);
    }
  };
}

/** express-rate-limit's default policy name: `<limit>-in-<n>sec|min|hr(s)|day(s)`. */
function policyName(limit: number, windowMs: number): string {
  const seconds = windowMs / 1000;
  const minutes = seconds / 60;
  const hours = minutes / 60;
  const days = hours / 24;
  const duration =
    seconds < 60 ? `${seconds}sec` : minutes < 60 ? `${minutes}min` : hours < 24 ? `${hours}hr${hours > 1 ? 's' : ''}` : `${days}day${days > 1 ? 's' : ''}`;
  return `${limit}-in-${duration}`;
}

/** express-rate-limit's `pk`: the first 12 hex digits of the key's SHA-256, in base64. */
function draft8PartitionKey(key: string): string {
  return Buffer.from(hash('sha256', key, 'hex').slice(0, 12)).toString('base64');
}

/** `fn` with its answers kept, for a bounded number of keys (API key ids: few). */
function memoise(fn: (key: string) => string, max = 1024): (key: string) => string {
  const kept = new Map<string, string>();
  return (key) => {
    let value = kept.get(key);
    if (value === undefined) {
      if (kept.size >= max) kept.clear();
      value = fn(key);
      kept.set(key, value);
    }
    return value;
  };
}
