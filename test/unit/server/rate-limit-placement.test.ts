/**
 * Where the rate limit runs (x-decisions: rate-limit-headers): the request guard calls it right
 * after the key check, so a caller without a valid key is never counted and every answer to a
 * caller with one (404, 405, 413, 415 included) is; and the limiter's own option checks.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { createApiKeyCheck } from '../../../server/auth/bearer-auth.js';
import { createRequestGuard } from '../../../server/http/request-guard.js';
import { checkRateLimitOptions } from '../../../server/http/rate-limit.js';

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
