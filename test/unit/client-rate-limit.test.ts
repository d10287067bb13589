/**
 * The client's rate-limit reading (client/rate-limit.ts, x-decisions: rate-limit-headers) and
 * its tolerance of answers beyond the spec's bounds (x-decisions: text-bounds): a bound limits
 * what our server accepts and sends, never what the client accepts. Client calls go through
 * an injected fetch.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSessionsClient, parseRateLimit } from '../../client/index.js';
import { toResumeOutcome } from '../../client/outcome.js';

const headers = (init: Record<string, string>) => new Headers(init);
const NOW = Date.UTC(2026, 10, 23, 10, 0, 0);

describe('parseRateLimit', () => {
  it.each<[string, Record<string, string>, ReturnType<typeof parseRateLimit>]>([
    [
      'draft-8 as our server sends it',
      { RateLimit: '"100-in-1min"; r=99; t=60', 'RateLimit-Policy': '"100-in-1min"; q=100; w=60; pk=:MGQ4NDk0ZmE4N2Nh:' },
      { limit: 100, remaining: 99, resetSeconds: 60 },
    ],
    [
      'draft-8 without spaces and several policies: the one with fewest left',
      { RateLimit: '"burst";r=5;t=1, "day";r=2;t=3600', 'RateLimit-Policy': '"burst";q=10;w=1, "day";q=1000;w=86400' },
      { limit: 1000, remaining: 2, resetSeconds: 3600 },
    ],
    ['draft-8 without a policy field', { RateLimit: 'default;r=0;t=30' }, { limit: undefined, remaining: 0, resetSeconds: 30 }],
    ['draft-7', { RateLimit: 'limit=100, remaining=0, reset=12' }, { limit: 100, remaining: 0, resetSeconds: 12 }],
    [
      'RateLimit-Limit / -Remaining / -Reset',
      { 'RateLimit-Limit': '10', 'RateLimit-Remaining': '3', 'RateLimit-Reset': '7' },
      { limit: 10, remaining: 3, resetSeconds: 7 },
    ],
    [
      'X-RateLimit-* with a Unix-time reset',
      { 'X-RateLimit-Limit': '5000', 'X-RateLimit-Remaining': '4999', 'X-RateLimit-Reset': String(NOW / 1000 + 90) },
      { limit: 5000, remaining: 4999, resetSeconds: 90 },
    ],
    ['X-Rate-Limit-* without a reset', { 'X-Rate-Limit-Limit': '15', 'X-Rate-Limit-Remaining': '14' }, { limit: 15, remaining: 14, resetSeconds: undefined }],
    ['values beyond the spec bounds', { RateLimit: '"big"; r=123456789012; t=9999999' }, { limit: undefined, remaining: 123456789012, resetSeconds: 9999999 }],
  ])('%s', (_, init, expected) => {
    expect(parseRateLimit(headers(init), NOW)).toEqual(expected);
  });

  it.each<Record<string, string>>([
    {},
    { RateLimit: 'garbage' },
    { RateLimit: '"p"; r=-1; t=5' },
    { RateLimit: '"p"; r=1e3' },
    { RateLimit: 'limit=10, remaining=lots' },
    { 'RateLimit-Remaining': 'NaN' },
    { 'X-RateLimit-Remaining': '' },
    { RateLimit: '"unterminated; r=3' },
  ])('gives undefined for absent or unreadable fields: %j', (init) => {
    expect(parseRateLimit(headers(init), NOW)).toBeUndefined();
  });

  it('property: never throws, and any result holds non-negative whole numbers', () => {
    const value = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'binary-ascii', maxLength: 80 }));
    fc.assert(
      fc.property(value, value, value, (rate, policy, remaining) => {
        const init = new Headers();
        // Headers refuses some byte strings itself; those never reach the parser.
        for (const [name, v] of [
          ['ratelimit', rate],
          ['ratelimit-policy', policy],
          ['x-ratelimit-remaining', remaining],
        ] as const) {
          try {
            init.set(name, v);
          } catch {
            /* not a header value */
          }
        }
        const info = parseRateLimit(init, NOW);
        if (!info) return true;
        return [info.limit, info.remaining, info.resetSeconds].every((n) => n === undefined || (Number.isSafeInteger(n) && n >= 0));
      }),
      { numRuns: 300 },
    );
  });

  it('property: reads back what a draft-8 server writes', () => {
    const n = fc.integer({ min: 0, max: 2 ** 31 });
    const name = fc.stringMatching(/^[a-z0-9-]{1,20}$/);
    fc.assert(
      fc.property(name, n, n, n, (policy, limit, remaining, reset) => {
        const parsed = parseRateLimit(headers({ RateLimit: `"${policy}"; r=${remaining}; t=${reset}`, 'RateLimit-Policy': `"${policy}"; q=${limit}; w=60` }));
        expect(parsed).toEqual({ limit, remaining, resetSeconds: reset });
      }),
    );
  });
});

describe('outcomes carry rateLimit', () => {
  const answer = (status: number, init: Record<string, string>, text = '{"success":true,"message":"ok"}') =>
    toResumeOutcome({ sessionId: 's', status, headers: headers(init), text, attempts: 1, now: NOW });

  it('on every kind of outcome that reports it, and not at all when the answer has none', () => {
    const rate = { RateLimit: '"p"; r=0; t=5', 'RateLimit-Policy': '"p"; q=3; w=60' };
    expect(answer(200, rate)).toMatchObject({ kind: 'resumed', rateLimit: { limit: 3, remaining: 0, resetSeconds: 5 } });
    expect(answer(429, { ...rate, 'Retry-After': '5' }, '{}')).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 5, rateLimit: { remaining: 0 } });
    expect(answer(404, rate, '{}')).toMatchObject({ kind: 'not_found', rateLimit: { remaining: 0 } });
    expect('rateLimit' in answer(200, {})).toBe(false);
    expect('rateLimit' in answer(429, { RateLimit: 'garbage' }, '{}')).toBe(false);
  });
});

describe('the client accepts answers beyond the spec bounds (x-decisions: text-bounds)', () => {
  const clientAnswering = (status: number, body: string, init: Record<string, string> = {}) =>
    createSessionsClient({
      baseUrl: 'https://service.invalid',
      apiKey: 'k',
      maxRetries: 0,
      fetch: async () => new Response(body, { status, headers: { 'content-type': 'application/json', ...init } }),
    });
  const longText = 'x'.repeat(100_000);

  it('a 100 KB message on success', async () => {
    const outcome = await clientAnswering(200, JSON.stringify({ success: true, message: longText })).resume('s');
    expect(outcome.kind).toBe('resumed');
    if (outcome.kind === 'resumed') expect(outcome.result.message).toHaveLength(100_000);
  });

  it('a 1 KB error code with control characters and a 100 KB message carrying not_paused', async () => {
    const body = JSON.stringify({ success: false, error: `\u0007${'E'.repeat(1024)}`, message: `${longText} not_paused` });
    const outcome = await clientAnswering(409, body).resume('s');
    expect(outcome).toMatchObject({ kind: 'not_paused', status: 409 });
    if (outcome.kind !== 'resumed') expect(outcome.message.length).toBeGreaterThan(100_000);
  });

  it('a Retry-After beyond one day, a huge WWW-Authenticate and rate-limit values beyond the bounds', async () => {
    const outcome = await clientAnswering(429, '{}', { 'Retry-After': '9999999', RateLimit: `"${'p'.repeat(300)}"; r=0; t=9999999` }).resume('s');
    expect(outcome).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 9_999_999, rateLimit: { remaining: 0, resetSeconds: 9_999_999 } });
    const refused = await clientAnswering(401, '{}', { 'WWW-Authenticate': `Bearer realm="${'r'.repeat(5000)}"` }).resume('s');
    expect(refused.kind).toBe('unauthorized');
  });

  it('sends a session id beyond our server’s bounds as given: the real service decides', async () => {
    const seen: string[] = [];
    const client = createSessionsClient({
      baseUrl: 'https://service.invalid',
      apiKey: 'k',
      maxRetries: 0,
      fetch: async (input: Request) => {
        seen.push(input.url);
        return new Response('{}', { status: 404 });
      },
    });
    const id = `${'i'.repeat(300)}\n`;
    expect((await client.resume(id)).kind).toBe('not_found');
    expect(seen[0]).toContain(encodeURIComponent(id));
  });
});
