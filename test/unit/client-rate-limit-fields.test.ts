/**
 * parseRateLimit's structured-field reading (client/rate-limit.ts, RFC 9651 lists): quoted
 * names with commas and escapes, spaces, malformed members, ties, Unix-time resets.
 */
import { describe, expect, it } from 'vitest';
import { parseRateLimit } from '../../client/rate-limit.js';

const NOW = Date.UTC(2026, 10, 23, 10, 0, 0);
const read = (init: Record<string, string>) => parseRateLimit(new Headers(init), NOW);

describe('parseRateLimit: structured fields', () => {
  it('keeps a comma or an escaped quote inside a quoted policy name', () => {
    expect(read({ RateLimit: '"a,b"; r=4; t=9', 'RateLimit-Policy': '"a,b"; q=10' })).toEqual({ limit: 10, remaining: 4, resetSeconds: 9 });
    // A quoted name with an escape is not a name this reader takes: that member is skipped, whole.
    expect(read({ RateLimit: '"x\\",y"; r=3, "z"; r=8', 'RateLimit-Policy': '"z"; q=50, other; q=7' })).toEqual({
      limit: 50,
      remaining: 8,
      resetSeconds: undefined,
    });
  });

  it('reads members and parameters with spaces around them, and a token name', () => {
    expect(read({ RateLimit: '  day ;  r = 2 ; t = 60 ,', 'RateLimit-Policy': ' day ; q = 100 ' })).toEqual({ limit: 100, remaining: 2, resetSeconds: 60 });
  });

  it('skips a malformed member and a parameter without a name, and keeps the first of two equal counts', () => {
    expect(read({ RateLimit: '1bad; r=0, "ok"; =5; r=6; t=1, "tie"; r=6; t=2' })).toEqual({ limit: undefined, remaining: 6, resetSeconds: 1 });
    expect(read({ RateLimit: 'x"y; r=1' })).toBeUndefined();
  });

  it('takes the limit only from the policy of the same name', () => {
    expect(read({ RateLimit: '"a"; r=1', 'RateLimit-Policy': '"b"; q=10' })).toEqual({ limit: undefined, remaining: 1, resetSeconds: undefined });
    expect(read({ RateLimit: '"a"; r=1', 'RateLimit-Policy': '1bad; q=10, "a"; q=20' })).toMatchObject({ limit: 20 });
  });

  it('reads draft-7 fields with spaces around =, and falls back to separate fields when RateLimit is unreadable', () => {
    expect(read({ RateLimit: 'limit = 9, remaining = 4, reset = 3' })).toEqual({ limit: 9, remaining: 4, resetSeconds: 3 });
    expect(read({ RateLimit: 'limit=9, remaining=4, reset=3' })).toEqual({ limit: 9, remaining: 4, resetSeconds: 3 });
    expect(read({ RateLimit: 'garbage', 'RateLimit-Remaining': '5' })).toEqual({ limit: undefined, remaining: 5, resetSeconds: undefined });
    expect(read({ RateLimit: 'remaining=x', 'X-RateLimit-Remaining': ' 6 ' })).toMatchObject({ remaining: 6 });
  });

  it('reads a reset from 1,000,000,000 on as a Unix time, below it as seconds', () => {
    expect(read({ 'RateLimit-Remaining': '1', 'RateLimit-Reset': '999999999' })?.resetSeconds).toBe(999_999_999);
    expect(read({ 'RateLimit-Remaining': '1', 'RateLimit-Reset': '1000000000' })?.resetSeconds).toBe(0);
    expect(read({ 'RateLimit-Remaining': '1', 'RateLimit-Reset': String(NOW / 1000 + 30) })?.resetSeconds).toBe(30);
  });

  it('refuses counts that are not 1 to 15 digits', () => {
    for (const bad of ['-1', '1.5', '1e3', '1234567890123456', '']) expect(read({ 'RateLimit-Remaining': bad }), bad).toBeUndefined();
    expect(read({ 'RateLimit-Remaining': '123456789012345' })?.remaining).toBe(123_456_789_012_345);
  });
});
