/**
 * afterSecurityCheck (server/http/rate-limit.ts) puts the rate limit right after the
 * validator's security step (x-decisions: rate-limit-headers), and refuses a chain without one.
 */
import type { RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { afterSecurityCheck, checkRateLimitOptions } from '../../../server/http/rate-limit.js';

const step = (name: string): RequestHandler => Object.defineProperty(() => undefined, 'name', { value: name }) as RequestHandler;
const names = (chain: RequestHandler[]) => chain.map((h) => h.name);

describe('afterSecurityCheck', () => {
  const chain = ['pathParamsMiddleware', 'metadataMiddleware', 'securityMiddleware', 'requestMiddleware', 'responseMiddleware'].map(step);

  it('inserts the limiter between the security check and the request validation', () => {
    expect(names(afterSecurityCheck(chain, step('limiter')))).toEqual([
      'pathParamsMiddleware',
      'metadataMiddleware',
      'securityMiddleware',
      'limiter',
      'requestMiddleware',
      'responseMiddleware',
    ]);
  });

  it('leaves the chain alone without a limiter, and refuses a chain with no security step', () => {
    expect(afterSecurityCheck(chain, undefined)).toBe(chain);
    expect(() => afterSecurityCheck([step('metadataMiddleware')], step('limiter'))).toThrow(/securityMiddleware/);
  });
});

describe('checkRateLimitOptions', () => {
  it('accepts windows up to one day and refuses longer ones', () => {
    expect(() => checkRateLimitOptions({ limit: 1, windowMs: 86_400_000 })).not.toThrow();
    expect(() => checkRateLimitOptions({ limit: 1, windowMs: 86_400_001 })).toThrow(/at most one day/);
  });
});
