/**
 * Where the rate limit runs (x-decisions: rate-limit-headers): the request guard calls it right
 * after the key check, so a caller without a valid key is never counted and every answer to a
 * caller with one (404, 405, 413, 415 included) is; and the limiter's own option checks.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { createApiKeyCheck } from '../../../server/auth/bearer-auth.js';
import { createRequestGuard } from '../../../server/http/request-guard.js';
import { rateLimit } from 'express-rate-limit';
import { checkRateLimitOptions, createRateLimit } from '../../../server/http/rate-limit.js';

/** Runs the guard on a request shaped by `init`; returns what it passed on, and whether the limiter ran. */
function runGuard(init: { url: string; method?: string; authorization?: string }) {
  const counted: string[] = [];
  const afterKey: RequestHandler = (req, _res, next) => {
    counted.push(req.originalUrl);
    next();
  };
  const guard = createRequestGuard({ checkKey: createApiKeyCheck(['k1']), afterKey, onKey: () => undefined });
  const headers: Record<string, string> = { host: 'localhost', ...(init.authorization ? { authorization: init.authorization } : {}) };
  const req = {
    httpVersion: '1.1',
    method: init.method ?? 'POST',
    originalUrl: init.url,
    headers,
    rawHeaders: Object.entries(headers).flat(),
    is: () => false,
  } as unknown as Request;
  let passed: unknown = 'not called';
  guard(req, { setHeader: () => undefined } as unknown as Response, ((err?: unknown) => (passed = err)) as NextFunction);
  return { counted, passed: passed as { status?: number } | undefined };
}

describe('rate-limit placement in the request guard', () => {
  it('never counts a caller without a valid key', () => {
    const { counted, passed } = runGuard({ url: '/v1/sessions/s/resume', authorization: 'Bearer wrong' });
    expect(counted).toEqual([]);
    expect(passed?.status).toBe(401);
  });

  it('counts every request with a valid key, before the path and method are judged', () => {
    for (const [url, method, status] of [
      ['/v1/sessions/s/resume', 'POST', undefined],
      ['/nowhere', 'POST', 404],
      ['/v1/sessions/s/resume', 'GET', 405],
    ] as const) {
      const { counted, passed } = runGuard({ url, method, authorization: 'Bearer k1' });
      expect(counted).toEqual([url]);
      expect(passed?.status).toBe(status);
    }
  });
});

describe('checkRateLimitOptions', () => {
  it('accepts windows up to one day and refuses longer ones', () => {
    expect(() => checkRateLimitOptions({ limit: 1, windowMs: 86_400_000 })).not.toThrow();
    expect(() => checkRateLimitOptions({ limit: 1, windowMs: 86_400_001 })).toThrow(/at most one day/);
  });
});

/** The RateLimit fields a limiter sets on one request of `key`, and what it passed on. */
async function fieldsOf(limiter: RequestHandler, key: string) {
  const headers: Record<string, string> = {};
  const res = {
    headersSent: false,
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
    getHeader: (name: string) => headers[name.toLowerCase()],
    append: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
  } as unknown as Response;
  const passed = await new Promise<unknown>((resolve) => void limiter({ key } as unknown as Request, res, resolve as NextFunction));
  return { ratelimit: headers.ratelimit, policy: headers['ratelimit-policy'], passed };
}

describe('createRateLimit', () => {
  it('sets the same draft-8 fields as express-rate-limit, down to the 429', async () => {
    for (const windowMs of [1_000, 60_000, 3_600_000, 86_400_000]) {
      const ours = createRateLimit({ limit: 2, windowMs }, (req) => (req as unknown as { key: string }).key);
      const theirs = rateLimit({ limit: 2, windowMs, standardHeaders: 'draft-8', legacyHeaders: false, validate: false, keyGenerator: (req) => (req as unknown as { key: string }).key, handler: (_req, _res, next) => next('limited') });
      for (let i = 0; i < 3; i += 1) {
        const [a, b] = [await fieldsOf(ours, 'key-1'), await fieldsOf(theirs, 'key-1')];
        expect(a.policy).toBe(b.policy);
        expect(a.ratelimit).toBe(b.ratelimit);
        expect(a.passed === undefined).toBe(b.passed === undefined);
      }
    }
  });
});
