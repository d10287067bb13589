/**
 * The request guard (x-decisions: request-checks, unknown-paths): the framing first, then a path
 * the document does not describe gets 404, then the key, whatever the method and id, so a
 * caller without a valid key is never counted by the rate limit mounted after it; the matcher
 * of the document's paths; and the limiter's own option checks.
 */
import type { NextFunction, Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { createAuthentication } from '../../../server/auth/authenticate.js';
import { createApiKeyCheck } from '../../../server/auth/bearer-auth.js';
import { createApiPathMatcher } from '../../../server/http/api-paths.js';
import { createRequestGuard } from '../../../server/http/request-guard.js';
import { contract } from '@session-resume-api/runtime/contract';
import { checkRateLimitOptions } from '../../../server/http/rate-limit.js';

/** Runs the guard on a request shaped by `init`; returns what it passed on. */
function runGuard(init: { url: string; method?: string; authorization?: string | string[]; host?: boolean }) {
  let checks = 0;
  const check = createApiKeyCheck(['k1']);
  const authenticate = createAuthentication((token) => (checks++, check(token)));
  const guard = createRequestGuard({ authenticate, isApiPath: createApiPathMatcher(Object.keys(contract.document.paths)) });
  const auth = init.authorization === undefined ? [] : [init.authorization].flat();
  const headers: Record<string, string> = { ...(init.host === false ? {} : { host: 'localhost' }), ...(auth[0] ? { authorization: auth[0] } : {}) };
  const req = {
    httpVersion: '1.1',
    method: init.method ?? 'POST',
    originalUrl: init.url,
    path: init.url.split('?')[0],
    headers,
    rawHeaders: [
      ...Object.entries(headers)
        .filter(([n]) => n !== 'authorization')
        .flat(),
      ...auth.flatMap((a) => ['Authorization', a]),
    ],
  } as unknown as Request;
  let passed: unknown = 'not called';
  guard(req, {} as Response, ((err?: unknown) => (passed = err)) as NextFunction);
  // The security handler asks again: the verdict is kept, the key is not checked twice.
  const again = authenticate(req);
  return { passed: passed as { status?: number } | undefined, again, checks };
}

describe('request guard', () => {
  it('refuses a caller without a valid key on the resume path, whatever the method and id', () => {
    for (const [url, method] of [
      ['/v1/sessions/s/resume', 'POST'],
      ['/v1/sessions/%ZZ/resume?x=1', 'POST'],
      ['/v1/sessions/s/resume', 'DELETE'],
    ] as const) {
      expect(runGuard({ url, method, authorization: 'Bearer wrong' }).passed?.status).toBe(401);
      expect(runGuard({ url, method }).passed?.status).toBe(401);
    }
  });

  it('answers 404 to a path the document does not describe, with or without a key, and checks no key', () => {
    for (const url of ['/metrics', '/v2/sessions/s/resume', '/V1/sessions/s/resume', '/v1/sessions/s/resume/', '/v1/sessions/s', '/nowhere?x=1']) {
      for (const authorization of [undefined, 'Bearer wrong', 'Bearer k1']) {
        const { passed, checks } = runGuard({ url, method: 'GET', authorization });
        expect(passed, `${url} ${authorization}`).toMatchObject({ status: 404, code: 'not_found' });
        expect(checks - (authorization ? 1 : 0)).toBe(0); // only the test's own second look at the key
      }
    }
  });

  it('passes a valid key on, and checks it once per request', () => {
    const { passed, again, checks } = runGuard({ url: '/v1/sessions/s/resume', authorization: 'Bearer k1' });
    expect(passed).toBeUndefined();
    expect(again).toMatch(/^[0-9a-f]{16}$/);
    expect(checks).toBe(1);
  });

  it('answers the framing before the key: no Host, two Authorization headers', () => {
    expect(runGuard({ url: '/x', authorization: 'Bearer k1', host: false }).passed?.status).toBe(400);
    expect(runGuard({ url: '/x', authorization: ['Bearer k1', 'Bearer k1'] }).passed?.status).toBe(400);
  });
});

describe('createApiPathMatcher', () => {
  const isApiPath = createApiPathMatcher(['/v1/sessions/{session_id}/resume']);

  it('matches the template exactly: case-sensitive, no trailing slash, one non-empty segment per parameter', () => {
    expect(['/v1/sessions/s1/resume', '/v1/sessions/a%2Fb/resume', '/v1/sessions/%ZZ/resume', '/v1/sessions/%/resume'].map(isApiPath)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(
      ['/v1/sessions//resume', '/v1/sessions/a/b/resume', '/V1/sessions/s/resume', '/v1/sessions/s/resume/', '//v1/sessions/s/resume', '/metrics', '/'].map(
        isApiPath,
      ),
    ).toEqual([false, false, false, false, false, false, false]);
  });
});

describe('checkRateLimitOptions', () => {
  it('accepts windows up to one day and refuses longer ones', () => {
    expect(() => checkRateLimitOptions({ limit: 1, windowMs: 86_400_000 })).not.toThrow();
    expect(() => checkRateLimitOptions({ limit: 1, windowMs: 86_400_001 })).toThrow(/at most one day/);
  });
});
