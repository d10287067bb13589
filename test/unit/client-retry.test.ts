/**
 * The client's retry layer (client/retry.ts): the rule (`nextAttempt`, `backoffDelay`) as
 * pure functions, read from the contract's x-retry-policy, and the adapter (`createRetryingFetch`) over an injected
 * fetch: per-attempt deadline, caller abort, network failures, bodies. No sockets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionsClientError } from '../../client/errors.js';
import { RESUME_RETRY_POLICY, type ResumeRetryPolicy } from '@session-resume-api/runtime/behaviour';
import {
  backoffDelay,
  createRetryingFetch,
  mayHaveApplied,
  networkFailureKind,
  nextAttempt,
  replayable,
  type AttemptResult,
  type FetchLike,
} from '../../client/retry.js';

const NOW = Date.UTC(2026, 10, 23, 10, 0, 0);
const LIMITS = { maxRetries: 2, maxRetryDelayMs: 10_000 };
const half = () => 0.5;
/** The largest double below 1: the top of the jitter's range. */
const almostOne = () => 1 - 2 ** -53;
const answered = (status: number, retryAfter: string | null = null) => ({ kind: 'answered', status, retryAfter }) as const;

describe('backoffDelay: full-jitter exponential backoff, base 250 ms', () => {
  it('doubles the range with each failed attempt from a 250 ms base', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => backoffDelay(attempt, 60_000, almostOne))).toEqual([249, 499, 999, 1999, 3999]);
    expect([1, 2, 3].map((attempt) => backoffDelay(attempt, 60_000, half))).toEqual([125, 250, 500]);
  });

  it('never exceeds the cap, however many attempts failed', () => {
    expect(backoffDelay(20, 1000, almostOne)).toBe(999);
    expect(backoffDelay(3, 600, half)).toBe(300);
  });

  it('draws the delay uniformly below the ceiling (full jitter): a random 0 waits 0', () => {
    expect(backoffDelay(4, 60_000, () => 0)).toBe(0);
    expect(backoffDelay(4, 60_000, () => 0.25)).toBe(500);
  });

  it('stays in [0, min(cap, 250 × 2^(attempt − 1))) for any attempt, cap and random draw', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, cap, r) => {
          const delay = backoffDelay(attempt, cap, () => r);
          const ceiling = Math.min(cap, 250 * 2 ** (attempt - 1));
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(ceiling);
        },
      ),
    );
  });
});

describe('nextAttempt: whether and when another attempt follows', () => {
  it('retries 429, 500, 502, 503 and 504, and no other status', () => {
    for (const status of [429, 503]) expect(nextAttempt(answered(status, '1'), 1, LIMITS)).toEqual({ retry: true, delayMs: 1000 });
    for (const status of [500, 502, 504]) expect(nextAttempt(answered(status, '1'), 1, LIMITS, { random: half })).toEqual({ retry: true, delayMs: 125 });
    for (const status of [200, 201, 400, 401, 404, 408, 409, 422, 501, 505]) expect(nextAttempt(answered(status, '1'), 1, LIMITS)).toEqual({ retry: false });
  });

  it('honours Retry-After on a 429 as on a 503', () => {
    expect(nextAttempt(answered(429, '7'), 1, LIMITS)).toEqual({ retry: true, delayMs: 7000 });
    expect(nextAttempt(answered(503, '7'), 1, LIMITS)).toEqual({ retry: true, delayMs: 7000 });
  });

  it('waits until an HTTP-date Retry-After', () => {
    const at = new Date(NOW + 3000).toUTCString();
    expect(nextAttempt(answered(503, at), 1, LIMITS, { now: NOW })).toEqual({ retry: true, delayMs: 3000 });
  });

  it('accepts a Retry-After exactly at the cap and ends the retries one second beyond it', () => {
    expect(nextAttempt(answered(503, '10'), 1, LIMITS)).toEqual({ retry: true, delayMs: 10_000 });
    expect(nextAttempt(answered(503, '11'), 1, LIMITS)).toEqual({ retry: false });
  });

  it('backs off exponentially when the answer has no (readable) Retry-After', () => {
    expect(nextAttempt(answered(503), 1, LIMITS, { random: half })).toEqual({ retry: true, delayMs: 125 });
    expect(nextAttempt(answered(502, 'soon'), 2, LIMITS, { random: half })).toEqual({ retry: true, delayMs: 250 });
    expect(nextAttempt(answered(504), 2, { maxRetries: 2, maxRetryDelayMs: 100 }, { random: almostOne })).toEqual({ retry: true, delayMs: 99 });
  });

  it('retries a network failure with backoff, and never a timeout or an abort', () => {
    expect(nextAttempt({ kind: 'failed', code: 'network' }, 2, LIMITS, { random: half })).toEqual({ retry: true, delayMs: 250 });
    expect(nextAttempt({ kind: 'failed', code: 'timeout' }, 1, LIMITS)).toEqual({ retry: false });
    expect(nextAttempt({ kind: 'failed', code: 'aborted' }, 1, LIMITS)).toEqual({ retry: false });
  });

  it('stops after maxRetries retries: attempt maxRetries + 1 is the last', () => {
    expect(nextAttempt(answered(503, '0'), 2, LIMITS)).toEqual({ retry: true, delayMs: 0 });
    expect(nextAttempt(answered(503, '0'), 3, LIMITS)).toEqual({ retry: false });
    expect(nextAttempt({ kind: 'failed', code: 'network' }, 3, LIMITS)).toEqual({ retry: false });
    expect(nextAttempt(answered(503, '0'), 1, { maxRetries: 0, maxRetryDelayMs: 10_000 })).toEqual({ retry: false });
  });

  it('never waits longer than the cap nor less than 0, whatever the Retry-After', () => {
    fc.assert(
      fc.property(fc.constantFrom(429, 502, 503, 504), fc.string(), fc.integer({ min: 0, max: 100_000 }), (status, header, cap) => {
        const next = nextAttempt(answered(status, header), 1, { maxRetries: 1, maxRetryDelayMs: cap }, { now: NOW });
        if (next.retry) {
          expect(next.delayMs).toBeGreaterThanOrEqual(0);
          expect(next.delayMs).toBeLessThanOrEqual(cap);
        }
      }),
    );
  });
});

/** An answer made afresh for each attempt that gets it. */
const reply =
  (body: string | null, status = 200, headers: Record<string, string> = {}) =>
  () =>
    new Response(body, { status, headers });

/**
 * A fetch that plays `steps` in turn, the last one repeating: an answer, an error to throw,
 * 'hang' (no answer until the signal aborts) or 'stall-body' (headers, then a body that never ends).
 */
function scripted(steps: ((() => Response) | Error | 'hang' | 'stall-body')[]) {
  const seen: { request: Request; body: string | null; signal: AbortSignal | undefined }[] = [];
  const fetch: FetchLike = async (request, init) => {
    const step = steps[Math.min(seen.length, steps.length - 1)]!;
    seen.push({ request, body: request.body ? await request.text() : null, signal: init?.signal });
    if (step instanceof Error) throw step;
    if (typeof step === 'function') return step();
    const signal = init?.signal;
    if (step === 'stall-body') {
      // Headers arrive, the body never ends: only the attempt's deadline or the caller stops it.
      const body = new ReadableStream({ start: (c) => signal?.addEventListener('abort', () => c.error(signal.reason), { once: true }) });
      return new Response(body, { status: 200 });
    }
    return new Promise<Response>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      // Were the deadline never to fire, the call would end with this answer, failing the test fast.
      setTimeout(() => resolve(new Response('late', { status: 200 })), 3000).unref();
    });
  };
  return { fetch, seen };
}

const refused = () => new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
const URL_ = 'https://api.example.org/sessions/s1/resume';

async function failure(call: Promise<unknown>): Promise<SessionsClientError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SessionsClientError);
  return error as SessionsClientError;
}

describe('createRetryingFetch over an injected fetch', () => {
  it('returns a non-retryable answer at once, its body read', async () => {
    const { fetch, seen } = scripted([reply('nope', 404)]);
    const answer = await createRetryingFetch({ fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 0 })(new Request(URL_));
    expect(answer).toMatchObject({ text: 'nope', attempts: 1 });
    expect(answer.response.status).toBe(404);
    expect(seen).toHaveLength(1);
  });

  it('retries a 503 with Retry-After: 0 and returns the next answer', async () => {
    const { fetch, seen } = scripted([reply('busy', 503, { 'retry-after': '0' }), reply('ok', 200)]);
    const answer = await createRetryingFetch({ fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 1000 })(new Request(URL_));
    expect(answer).toMatchObject({ text: 'ok', attempts: 2 });
    expect(seen).toHaveLength(2);
  });

  it('returns the last retryable answer as is once the retries are used up', async () => {
    const { fetch, seen } = scripted([reply('busy', 503, { 'retry-after': '0' })]);
    const answer = await createRetryingFetch({ fetch, maxRetries: 1, timeoutMs: 5000, maxRetryDelayMs: 1000 })(new Request(URL_));
    expect(answer).toMatchObject({ text: 'busy', attempts: 2 });
    expect(answer.response.status).toBe(503);
    expect(seen).toHaveLength(2);
  });

  it('returns a retryable answer whose Retry-After is beyond the cap without waiting', async () => {
    const { fetch, seen } = scripted([reply('later', 429, { 'retry-after': '3600' }), reply('ok')]);
    const answer = await createRetryingFetch({ fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 1000 })(new Request(URL_));
    expect(answer).toMatchObject({ text: 'later', attempts: 1 });
    expect(seen).toHaveLength(1);
  });

  it('retries network failures, then answers', async () => {
    const { fetch, seen } = scripted([refused(), refused(), reply('ok')]);
    // A cap of 0 ms: the backoff between attempts is 0.
    const answer = await createRetryingFetch({ fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 0 })(new Request(URL_));
    expect(answer).toMatchObject({ text: 'ok', attempts: 3 });
    expect(seen).toHaveLength(3);
  });

  it('throws a network error naming the URL and the cause after the last retry', async () => {
    const { fetch, seen } = scripted([refused()]);
    const error = await failure(createRetryingFetch({ fetch, maxRetries: 1, timeoutMs: 5000, maxRetryDelayMs: 0 })(new Request(URL_)));
    expect(error).toMatchObject({ code: 'network', url: URL_, attempts: 2, message: `Cannot reach ${URL_}: fetch failed (ECONNREFUSED).` });
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(seen).toHaveLength(2);
  });

  it('ends an attempt that gets no answer within timeoutMs as a timeout, not retried', async () => {
    const { fetch, seen } = scripted(['hang']);
    const error = await failure(createRetryingFetch({ fetch, maxRetries: 2, timeoutMs: 20, maxRetryDelayMs: 0 })(new Request(URL_)));
    expect(error).toMatchObject({ code: 'timeout', attempts: 1, message: `No answer from ${URL_} within 20 ms.` });
    expect((error.cause as DOMException).name).toBe('TimeoutError');
    expect((error.cause as DOMException).message).toBe('No answer within 20 ms.');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.signal?.aborted).toBe(true);
  });

  it('bounds the body by the same deadline', async () => {
    const { fetch } = scripted(['stall-body']);
    const error = await failure(createRetryingFetch({ fetch, maxRetries: 2, timeoutMs: 20, maxRetryDelayMs: 0 })(new Request(URL_)));
    expect(error).toMatchObject({ code: 'timeout', attempts: 1, message: `The answer from ${URL_} did not complete within 20 ms.` });
    expect((error.cause as DOMException).name).toBe('TimeoutError');
  });

  it('reports a body that breaks off as a network error', async () => {
    const body = new ReadableStream({ start: (c) => c.error(new TypeError('terminated', { cause: { code: 'ECONNRESET' } })) });
    const { fetch } = scripted([() => new Response(body, { status: 200 })]);
    const error = await failure(createRetryingFetch({ fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 0 })(new Request(URL_)));
    expect(error).toMatchObject({ code: 'network', attempts: 1, message: `The answer from ${URL_} broke off: terminated (ECONNRESET).` });
  });

  it("stops at once when the caller's signal is already aborted, with its reason as the cause", async () => {
    const { fetch, seen } = scripted(['hang']);
    const caller = new AbortController();
    caller.abort(new Error('user left'));
    const error = await failure(
      createRetryingFetch({ fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 0 })(new Request(URL_), { signal: caller.signal }),
    );
    expect(error).toMatchObject({ code: 'aborted', attempts: 1, message: `The request to ${URL_} was aborted.` });
    expect((error.cause as Error).message).toBe('user left');
    expect(seen[0]!.signal?.aborted).toBe(true);
  });

  it('ends an attempt under way when the caller aborts, and does not retry it', async () => {
    const { fetch, seen } = scripted(['hang']);
    const caller = new AbortController();
    const call = createRetryingFetch({ fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 0 })(new Request(URL_), { signal: caller.signal });
    setTimeout(() => caller.abort(new Error('stop')), 10);
    const error = await failure(call);
    expect(error).toMatchObject({ code: 'aborted', attempts: 1 });
    expect((error.cause as Error).message).toBe('stop');
    expect(seen).toHaveLength(1);
  });

  it('ends the wait between attempts when the caller aborts', async () => {
    const { fetch, seen } = scripted([reply('busy', 503, { 'retry-after': '5' }), reply('ok')]);
    const caller = new AbortController();
    const call = createRetryingFetch({ fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 10_000 })(new Request(URL_), { signal: caller.signal });
    setTimeout(() => caller.abort(new Error('enough')), 20);
    const error = await failure(call);
    expect(error).toMatchObject({ code: 'aborted', attempts: 1, message: `The request to ${URL_} was aborted.` });
    expect((error.cause as Error).message).toBe('enough');
    expect(seen).toHaveLength(1);
  });

  it("follows the request's own signal when no hooks are given", async () => {
    const { fetch } = scripted(['hang']);
    const caller = new AbortController();
    caller.abort(new Error('own'));
    const error = await failure(
      createRetryingFetch({ fetch, maxRetries: 0, timeoutMs: 5000, maxRetryDelayMs: 0 })(new Request(URL_, { signal: caller.signal })),
    );
    expect(error.code).toBe('aborted');
  });

  it('stops following the caller once the answer is in: a later abort changes nothing', async () => {
    const { fetch, seen } = scripted([reply('ok')]);
    const caller = new AbortController();
    const answer = await createRetryingFetch({ fetch, maxRetries: 0, timeoutMs: 5000, maxRetryDelayMs: 0 })(new Request(URL_), { signal: caller.signal });
    caller.abort();
    expect(answer.text).toBe('ok');
    expect(seen[0]!.signal?.aborted).toBe(false);
  });

  it('sends the whole body on every attempt of a request with one', async () => {
    const { fetch, seen } = scripted([reply('', 503, { 'retry-after': '0' })]);
    const request = new Request(URL_, { method: 'POST', body: '{"a":1}' });
    await createRetryingFetch({ fetch, maxRetries: 1, timeoutMs: 5000, maxRetryDelayMs: 0 })(request);
    expect(seen.map((s) => s.body)).toEqual(['{"a":1}', '{"a":1}']);
  });

  it('passes a bodyless request itself to every attempt (one set of headers)', async () => {
    const { fetch, seen } = scripted([reply('', 503, { 'retry-after': '0' })]);
    const request = new Request(URL_);
    await createRetryingFetch({ fetch, maxRetries: 1, timeoutMs: 5000, maxRetryDelayMs: 0 })(request);
    expect(seen.map((s) => s.request)).toEqual([request, request]);
    expect(seen[0]!.request).toBe(request);
  });
});

describe('replayable', () => {
  it('rebuilds the answer with its status, headers and text, readable again', async () => {
    const response = new Response('x', { status: 409, statusText: 'Conflict', headers: { 'x-a': '1' } });
    const copy = replayable({ response, text: '{"a":1}', attempts: 1 });
    expect([copy.status, copy.statusText, copy.headers.get('x-a'), await copy.text()]).toEqual([409, 'Conflict', '1', '{"a":1}']);
  });

  it('gives a null-body status no body', () => {
    for (const status of [204, 205, 304]) expect(replayable({ response: new Response(null, { status }), text: '', attempts: 1 }).body).toBeNull();
  });
});

describe('nextAttempt follows the retry policy it is given', () => {
  const policy = (change: Partial<ResumeRetryPolicy>): ResumeRetryPolicy => ({ ...RESUME_RETRY_POLICY, ...change });

  it("by default is the contract's x-retry-policy: its statuses, its Retry-After statuses, a timeout reported", () => {
    for (const status of RESUME_RETRY_POLICY.retryableStatuses) expect(nextAttempt(answered(status), 1, LIMITS).retry).toBe(true);
    for (const status of RESUME_RETRY_POLICY.retryAfter.statuses) expect(nextAttempt(answered(status, '2'), 1, LIMITS)).toEqual({ retry: true, delayMs: 2000 });
    expect(nextAttempt({ kind: 'failed', code: 'timeout' }, 1, LIMITS).retry).toBe((RESUME_RETRY_POLICY.timedOutAttempts as string) === 'retry');
  });

  it("reads Retry-After only on the statuses the policy names (a 502's is not a floor)", () => {
    expect(nextAttempt(answered(502, '7'), 1, LIMITS, { random: half })).toEqual({ retry: true, delayMs: 125 });
    expect(
      nextAttempt(answered(502, '7'), 1, LIMITS, { random: half }, policy({ retryAfter: { ...RESUME_RETRY_POLICY.retryAfter, statuses: [502] } })),
    ).toEqual({ retry: true, delayMs: 7000 });
  });

  it('retries a timed-out attempt when the policy says retry, and a network failure only when it says so', () => {
    expect(nextAttempt({ kind: 'failed', code: 'timeout' }, 1, LIMITS, { random: half }, policy({ timedOutAttempts: 'retry' }))).toEqual({
      retry: true,
      delayMs: 125,
    });
    expect(nextAttempt({ kind: 'failed', code: 'network' }, 1, LIMITS, {}, policy({ networkFailures: 'report' }))).toEqual({ retry: false });
    expect(nextAttempt({ kind: 'failed', code: 'aborted' }, 1, LIMITS, {}, policy({ timedOutAttempts: 'retry' }))).toEqual({ retry: false });
  });

  it('waits the cap above it when the policy says waitMax, and gives up when it says giveUp', () => {
    const waitMax = policy({ retryAfter: { ...RESUME_RETRY_POLICY.retryAfter, aboveMax: 'waitMax' } });
    expect(nextAttempt(answered(429, '60'), 1, LIMITS, {}, waitMax)).toEqual({ retry: true, delayMs: LIMITS.maxRetryDelayMs });
    expect(nextAttempt(answered(429, '60'), 1, LIMITS, {}, policy({}))).toEqual({ retry: false });
  });

  it('retries only the statuses the policy lists, with its backoff', () => {
    const only500 = policy({ retryableStatuses: [500], backoff: { ...RESUME_RETRY_POLICY.backoff, baseMs: 1000, factor: 3 } });
    expect(nextAttempt(answered(503, '1'), 1, LIMITS, {}, only500)).toEqual({ retry: false });
    expect(nextAttempt(answered(500), 2, LIMITS, { random: half }, only500)).toEqual({ retry: true, delayMs: 1500 });
  });

  it('never retries a 4xx other than 429, nor not_paused, whatever the Retry-After', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 400, max: 499 }).filter((s) => s !== 429),
        fc.option(fc.string(), { nil: null }),
        fc.integer({ min: 1, max: 2 }),
        (status, header, attempt) => {
          expect(nextAttempt(answered(status, header), attempt, LIMITS)).toEqual({ retry: false });
        },
      ),
    );
    expect(RESUME_RETRY_POLICY.retryableStatuses).not.toContain(RESUME_RETRY_POLICY.outcomes.notPaused.status);
  });
});

describe('without an Idempotency-Key: only what applied nothing is retried (x-retry-policy withoutIdempotencyKey)', () => {
  const KEYLESS = { ...LIMITS, keyless: true };
  const failed = (code: 'network' | 'timeout' | 'aborted', sent?: 'beforeRequestSent' | 'afterRequestSent'): AttemptResult => ({
    kind: 'failed',
    code,
    ...(sent ? { sent } : {}),
  });
  const withRule = (changes: Partial<ResumeRetryPolicy['mayHaveApplied']>, retries = 'notApplied'): ResumeRetryPolicy => ({
    ...RESUME_RETRY_POLICY,
    mayHaveApplied: { ...RESUME_RETRY_POLICY.mayHaveApplied, ...changes },
    withoutIdempotencyKey: { retries },
  });

  it('retries 429, 503 and a failure before the request was sent; not 500, 502, 504, a failure after it, one of unknown kind, or a timeout', () => {
    for (const status of [429, 503]) expect(nextAttempt(answered(status, '1'), 1, KEYLESS)).toEqual({ retry: true, delayMs: 1000 });
    expect(nextAttempt(failed('network', 'beforeRequestSent'), 1, KEYLESS, { random: half })).toEqual({ retry: true, delayMs: 125 });
    for (const status of [500, 502, 504]) expect(nextAttempt(answered(status), 1, KEYLESS, { random: half })).toEqual({ retry: false });
    expect(nextAttempt(failed('network', 'afterRequestSent'), 1, KEYLESS)).toEqual({ retry: false });
    expect(nextAttempt(failed('network'), 1, KEYLESS)).toEqual({ retry: false });
    const retryTimeouts = { ...RESUME_RETRY_POLICY, timedOutAttempts: 'retry' };
    expect(nextAttempt(failed('timeout'), 1, KEYLESS, { random: half }, retryTimeouts)).toEqual({ retry: false });
    expect(nextAttempt(failed('timeout'), 1, LIMITS, { random: half }, retryTimeouts)).toEqual({ retry: true, delayMs: 125 });
  });

  it('retries every retryable failure with a key, whatever may have applied', () => {
    for (const status of [500, 502, 504])
      expect(nextAttempt(answered(status), 1, { ...LIMITS, keyless: false }, { random: half })).toEqual({ retry: true, delayMs: 125 });
    expect(nextAttempt(failed('network', 'afterRequestSent'), 1, LIMITS, { random: half })).toEqual({ retry: true, delayMs: 125 });
  });

  it('reads the rule from the policy it is given', () => {
    expect(nextAttempt(answered(500), 1, KEYLESS, { random: half }, withRule({ statuses: [] }))).toEqual({ retry: true, delayMs: 125 });
    expect(nextAttempt(answered(503, '1'), 1, KEYLESS, {}, withRule({ statuses: [503] }))).toEqual({ retry: false });
    expect(nextAttempt(failed('network', 'afterRequestSent'), 1, KEYLESS, { random: half }, withRule({ networkFailures: [] }))).toEqual({
      retry: true,
      delayMs: 125,
    });
    expect(
      nextAttempt(failed('network', 'beforeRequestSent'), 1, KEYLESS, {}, withRule({ networkFailures: ['beforeRequestSent', 'afterRequestSent'] })),
    ).toEqual({ retry: false });
    expect(nextAttempt(answered(429, '1'), 1, KEYLESS, {}, withRule({}, 'none'))).toEqual({ retry: false });
    expect(nextAttempt(answered(429, '1'), 1, LIMITS, {}, withRule({}, 'none'))).toEqual({ retry: true, delayMs: 1000 });
  });

  it('mayHaveApplied: per failure kind, as the policy says', () => {
    expect([200, 429, 500, 502, 503, 504].filter((status) => mayHaveApplied(answered(status)))).toEqual([500, 502, 504]);
    expect(mayHaveApplied(failed('timeout'))).toBe(true);
    expect(mayHaveApplied(failed('timeout'), withRule({ timedOutAttempts: false }))).toBe(false);
    expect(mayHaveApplied(failed('network', 'beforeRequestSent'))).toBe(false);
    expect(mayHaveApplied(failed('network', 'afterRequestSent'))).toBe(true);
    expect(mayHaveApplied(failed('network'))).toBe(true);
    expect(mayHaveApplied(failed('network'), withRule({ networkFailures: ['beforeRequestSent'] }))).toBe(false);
    expect(mayHaveApplied(failed('aborted'))).toBe(false);
  });

  it('keyless retries are a subset of keyed ones, and none may have applied the resume', () => {
    const results = fc.oneof(
      fc.record({ kind: fc.constant('answered' as const), status: fc.integer({ min: 100, max: 599 }), retryAfter: fc.constantFrom(null, '0', '1', 'soon') }),
      fc.record({
        kind: fc.constant('failed' as const),
        code: fc.constantFrom('network' as const, 'timeout' as const, 'aborted' as const),
        sent: fc.constantFrom('beforeRequestSent' as const, 'afterRequestSent' as const),
      }),
    );
    fc.assert(
      fc.property(results, fc.integer({ min: 1, max: 3 }), (result, attempt) => {
        const keyless = nextAttempt(result, attempt, { ...LIMITS, keyless: true }, { random: half });
        if (!keyless.retry) return;
        expect(nextAttempt(result, attempt, LIMITS, { random: half })).toEqual(keyless);
        expect(mayHaveApplied(result)).toBe(false);
      }),
    );
  });
});

describe('networkFailureKind: what a failed fetch shows of when it failed', () => {
  const coded = (code: string) => Object.assign(new Error(code), { code });
  it('is before the request was sent for a refused connection, DNS, an unreachable host, a connect timeout or a TLS failure', () => {
    const codes = [
      'ECONNREFUSED',
      'ENOTFOUND',
      'EAI_AGAIN',
      'EAI_FAIL',
      'EAI_NONAME',
      'ENETUNREACH',
      'EHOSTUNREACH',
      'EADDRNOTAVAIL',
      'UND_ERR_CONNECT_TIMEOUT',
    ];
    const tls = [
      'CERT_HAS_EXPIRED',
      'CERT_NOT_YET_VALID',
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'SELF_SIGNED_CERT_IN_CHAIN',
      'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'ERR_TLS_CERT_ALTNAME_INVALID',
      'ERR_SSL_WRONG_VERSION_NUMBER',
    ];
    for (const code of [...codes, ...tls]) {
      expect(networkFailureKind(new TypeError('fetch failed', { cause: coded(code) })), code).toBe('beforeRequestSent');
    }
  });

  it('is after the request was sent for a reset, a closed socket, an unknown code or no code at all (a browser says nothing)', () => {
    for (const code of ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ESOMETHING']) {
      expect(networkFailureKind(new TypeError('fetch failed', { cause: coded(code) })), code).toBe('afterRequestSent');
    }
    expect(networkFailureKind(new TypeError('Failed to fetch'))).toBe('afterRequestSent');
    expect(networkFailureKind(new TypeError('fetch failed', { cause: 'ECONNREFUSED' }))).toBe('afterRequestSent');
    expect(networkFailureKind(null)).toBe('afterRequestSent');
    expect(networkFailureKind('ECONNREFUSED')).toBe('afterRequestSent');
  });

  it('reads every address tried: before only when each of them failed before sending', () => {
    const tried = (...codes: string[]) =>
      new TypeError('fetch failed', { cause: Object.assign(new AggregateError(codes.map(coded)), { code: 'ECONNREFUSED' }) });
    expect(networkFailureKind(tried('ECONNREFUSED', 'ENETUNREACH'))).toBe('beforeRequestSent');
    expect(networkFailureKind(tried('ECONNREFUSED', 'ECONNRESET'))).toBe('afterRequestSent');
    // No address listed: the cause's own code decides.
    expect(networkFailureKind(new TypeError('fetch failed', { cause: Object.assign(new AggregateError([]), { code: 'ECONNREFUSED' }) }))).toBe(
      'beforeRequestSent',
    );
    expect(networkFailureKind(new TypeError('fetch failed', { cause: Object.assign(new AggregateError([]), { code: 'ECONNRESET' }) }))).toBe(
      'afterRequestSent',
    );
  });
});

describe('createRetryingFetch: a request without an Idempotency-Key', () => {
  const keyed = () => new Request(URL_, { method: 'POST', headers: { 'Idempotency-Key': 'k-1' } });
  const reset = () => new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });

  it('is not retried after a 500, 502 or 504, or a reset; a keyed one is', async () => {
    for (const step of [reply('oops', 500), reply('bad gateway', 502), reply('gateway timeout', 504)]) {
      const keyless = scripted([step, reply('ok')]);
      const answer = await createRetryingFetch({ fetch: keyless.fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 0 })(
        new Request(URL_, { method: 'POST' }),
      );
      expect(answer.attempts).toBe(1);
      expect(keyless.seen).toHaveLength(1);
      const withKey = scripted([step, reply('ok')]);
      expect((await createRetryingFetch({ fetch: withKey.fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 0 })(keyed())).attempts).toBe(2);
    }
    const keyless = scripted([reset(), reply('ok')]);
    const error = await failure(
      createRetryingFetch({ fetch: keyless.fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 0 })(new Request(URL_, { method: 'POST' })),
    );
    expect(error).toMatchObject({ code: 'network', attempts: 1 });
    const withKey = scripted([reset(), reply('ok')]);
    expect((await createRetryingFetch({ fetch: withKey.fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 0 })(keyed())).attempts).toBe(2);
  });

  it('is retried after a refused connection and a 503, which applied nothing', async () => {
    const { fetch, seen } = scripted([refused(), reply('busy', 503, { 'retry-after': '0' }), reply('ok')]);
    const answer = await createRetryingFetch({ fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 0 })(new Request(URL_, { method: 'POST' }));
    expect(answer).toMatchObject({ text: 'ok', attempts: 3 });
    expect(seen).toHaveLength(3);
  });

  it('returns a 503 whose Retry-After is beyond the cap at once, with a key or without', async () => {
    for (const request of [keyed(), new Request(URL_, { method: 'POST' })]) {
      const { fetch, seen } = scripted([reply('busy', 503, { 'retry-after': '1' }), reply('ok')]);
      const answer = await createRetryingFetch({ fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 0 })(request);
      expect(answer).toMatchObject({ text: 'busy', attempts: 1 });
      expect(seen).toHaveLength(1);
    }
  });

  it('reads the key header the policy names, in any case', async () => {
    const policy = { ...RESUME_RETRY_POLICY, idempotencyKey: { ...RESUME_RETRY_POLICY.idempotencyKey, header: 'X-Request-Key' } };
    const named = scripted([reply('oops', 500), reply('ok')]);
    const request = new Request(URL_, { method: 'POST', headers: { 'x-request-key': 'k' } });
    expect((await createRetryingFetch({ fetch: named.fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 0, policy })(request)).attempts).toBe(2);
    const other = scripted([reply('oops', 500), reply('ok')]);
    expect((await createRetryingFetch({ fetch: other.fetch, maxRetries: 2, timeoutMs: 5000, maxRetryDelayMs: 0, policy })(keyed())).attempts).toBe(1);
  });
});
