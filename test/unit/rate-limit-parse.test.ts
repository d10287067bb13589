/**
 * The rate-limit reader's parsing rules, asked of the module itself: structured-field lists with
 * escapes, names with spaces around them, parameters, and counts that are not numbers.
 */
import { describe, expect, it } from 'vitest';
import { parseRateLimit } from '../../client/rate-limit.js';

const NOW = 1_800_000_000_000;
const read = (init: Record<string, string>) => parseRateLimit(new Headers(init), NOW);

describe('parseRateLimit, the parsing rules', () => {
  it('an escaped quote inside a quoted parameter neither ends the string nor splits the member', () => {
    expect(read({ RateLimit: '"a"; r=2; n="x\\",y", "b"; r=3', 'RateLimit-Policy': '"a"; q=10, "b"; q=20' })).toEqual({
      limit: 10,
      remaining: 2,
      resetSeconds: undefined,
    });
  });

  it('a quoted name followed by spaces still names its policy', () => {
    expect(read({ RateLimit: '"p" ; r=5; t=7', 'RateLimit-Policy': '"p" ; q=10' })).toEqual({ limit: 10, remaining: 5, resetSeconds: 7 });
  });

  it('reads a parameter value after its =, alone', () => {
    expect(read({ RateLimit: 'p; r=5' })).toEqual({ limit: undefined, remaining: 5, resetSeconds: undefined });
  });

  it('a count that is not digits is no count, in every form', () => {
    expect(read({ 'RateLimit-Remaining': 'abc' })).toBeUndefined();
    expect(read({ RateLimit: 'p; r=abc' })).toBeUndefined();
    expect(read({ 'X-RateLimit-Remaining': '4', 'X-RateLimit-Limit': 'ten' })).toEqual({ limit: undefined, remaining: 4, resetSeconds: undefined });
  });

  it('a name matches its policy however each side writes it: quoted or a token, spaces after it or none', () => {
    expect(read({ RateLimit: '"p" ; r=5', 'RateLimit-Policy': '"p"; q=10' })).toEqual({ limit: 10, remaining: 5, resetSeconds: undefined });
    expect(read({ RateLimit: 'p; r=5', 'RateLimit-Policy': '"p"; q=10' })).toEqual({ limit: 10, remaining: 5, resetSeconds: undefined });
  });
});
