/** Per-API-key rate limit through express-rate-limit (x-decisions: rate-limit, rate-limit-headers). */
import { checkInteger, checkOption, isIntegerIn } from '@session-resume-api/runtime/options-error';
import type { Request, RequestHandler } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import { HttpError } from '../errors/http-error.js';

/** Longest window: one day, so that Retry-After and the `t=` of RateLimit stay within 86400 s (the spec's bound). */
export const MAX_WINDOW_MS = 86_400_000;

/** Rate limit settings: at most `limit` requests per API key per `windowMs` (ms, 1 to 86 400 000). */
export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  /**
   * Where hits are counted.
   * @defaultValue express-rate-limit's MemoryStore, this process only; Redis via createRedisRateLimitStore
   */
  store?: Store;
}

/** Checks rate limit options; throws `OptionsError` (a TypeError) that names the bad field. */
export function checkRateLimitOptions(options: RateLimitOptions): void {
  checkInteger('rateLimit.limit', options.limit, { min: 1 });
  checkOption(
    isIntegerIn(options.windowMs, { min: 1, max: MAX_WINDOW_MS }),
    `rateLimit.windowMs must be an integer from 1 to ${MAX_WINDOW_MS} (milliseconds, at most one day).`,
    'rateLimit.windowMs',
  );
}

/**
 * Counts requests by `keyOf(req)` (the API key's id: mount after the bearer check). Every counted
 * answer carries `RateLimit` and `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-08); over
 * the limit, 429 `rate_limited` with `Retry-After` (RFC 9110 §10.2.3). A store failure answers 503.
 * @example app.use(createRateLimit({ limit: 100, windowMs: 60_000 }, (req) => keyIdOf(req), logger));
 */
export function createRateLimit(options: RateLimitOptions, keyOf: (req: Request) => string, logger?: Logger): RequestHandler {
  checkRateLimitOptions(options);
  return rateLimit({
    limit: options.limit,
    windowMs: options.windowMs,
    ...(options.store ? { store: options.store } : {}),
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: (req) => keyOf(req),
    // Counting runs on the key's id, never on the address: the address checks do not apply.
    validate: { ip: false, trustProxy: false, xForwardedForHeader: false, keyGeneratorIpFallback: false },
    handler: (_req, res, next) => {
      const seconds = Number(res.getHeader('Retry-After'));
      next(new HttpError(429, 'rate_limited', `Too many requests for this API key; retry after ${seconds} seconds.`));
    },
    ...(logger
      ? {
          logger: {
            error: (err: unknown, msg?: string) => logger.error({ err }, msg ?? 'rate limit'),
            warn: (err: unknown, msg?: string) => logger.warn({ err }, msg ?? 'rate limit'),
          },
        }
      : {}),
  });
}
