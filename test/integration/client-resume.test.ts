/**
 * createSessionsClient against a tiny real HTTP server (test/helpers/resume-stub.ts): every
 * outcome kind, not_paused in the shapes the real service might use, retries, resets and
 * timeouts (issue #4, "Done when").
 */
import { RESUME_RETRY_POLICY } from '@session-resume-api/runtime/behaviour';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionsClient, SessionsClientError, type SessionsClient } from '../../client/index.js';
import { toResumeOutcome } from '../../client/outcome.js';
import { PACKAGE_VERSION } from '../../client/version.js';
import { getFreePort } from '../helpers/free-port.js';
import { startResumeStub, type ResumeStub } from '../helpers/resume-stub.js';

let stub: ResumeStub;
let client: SessionsClient;
beforeAll(async () => {
  stub = await startResumeStub();
  client = createSessionsClient({ baseUrl: stub.url, apiKey: 'test-key' });
});
afterAll(async () => {
  await stub?.stop();
});

describe('resume outcomes', () => {
  it('resolves `resumed` with the ResumeResult for a 200 success', async () => {
    const outcome = await client.resume('sess_paused_1');
    expect(outcome).toMatchObject({ kind: 'resumed', status: 200, attempts: 1 });
    if (outcome.kind !== 'resumed') throw new Error('not resumed');
    expect(outcome.result).toMatchObject({ success: true, message: 'Session sess_paused_1 resumed.' });
  });

  it.each([
    ['np-200', 200, 'as 200 with success false'],
    ['np-400', 400, 'as 400'],
    ['np-text', 409, 'as text/plain'],
  ])('reads not_paused from the marker: %s (%i, %s)', async (id, status) => {
    const outcome = await client.resume(id);
    expect(outcome).toMatchObject({ kind: 'not_paused', status, attempts: 1 });
    if (outcome.kind === 'resumed') throw new Error('resumed');
    expect(outcome.body).toContain('not_paused');
  });

  it('keeps a 404 that only echoes a session id containing the marker a not_found', async () => {
    const outcome = await client.resume('unknown_not_paused_1');
    expect(outcome).toMatchObject({ kind: 'not_found', status: 404, message: 'Session unknown_not_paused_1 was not found.' });
  });

  it('maps 403 to unauthorized, a bad key included', async () => {
    expect(await client.resume('forbidden')).toMatchObject({ kind: 'unauthorized', status: 403, message: 'Key lacks the scope.' });
  });

  it('returns rate_limited with Retry-After in seconds, beyond the cap, without retrying', async () => {
    const outcome = await client.resume('rl-seconds');
    expect(outcome).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterSeconds: 120, attempts: 1 });
    expect(stub.hits('rl-seconds')).toBe(1);
  });

  it('returns rate_limited with Retry-After as an HTTP date turned into seconds', async () => {
    const outcome = await client.resume('rl-date');
    if (outcome.kind !== 'rate_limited') throw new Error(`got ${outcome.kind}`);
    expect(outcome.retryAfterSeconds).toBeGreaterThan(3500);
    expect(outcome.retryAfterSeconds).toBeLessThanOrEqual(3600);
  });

  it('never crashes on a non-JSON body: a 500 HTML page still there after the retries is unexpected with status and text', async () => {
    const outcome = await client.resume('html-500');
    expect(outcome).toMatchObject({ kind: 'unexpected', status: 500, attempts: RESUME_RETRY_POLICY.attempts.max });
    expect(stub.hits('html-500')).toBe(RESUME_RETRY_POLICY.attempts.max);
    if (outcome.kind === 'resumed') throw new Error('resumed');
    expect(outcome.body).toBe('<html><body>Internal Server Error</body></html>');
    expect(await client.resume('garbage-200')).toMatchObject({ kind: 'unexpected', status: 200, body: 'OK', message: 'OK' });
  });

  it('never retries another 4xx', async () => {
    expect(await client.resume('bad-request')).toMatchObject({ kind: 'unexpected', status: 400, attempts: 1 });
    expect(stub.hits('bad-request')).toBe(1);
  });
});

describe('retries', () => {
  it('retries a 429 whose Retry-After is within the cap, then resumes', async () => {
    expect(await client.resume('rl-then-ok')).toMatchObject({ kind: 'resumed', attempts: 2 });
    expect(stub.hits('rl-then-ok')).toBe(2);
  });

  it('retries a 503, then resumes', async () => {
    expect(await client.resume('503-then-ok')).toMatchObject({ kind: 'resumed', attempts: 2 });
  });

  it('retries after a connection reset, then resumes', async () => {
    expect(await client.resume('reset-then-ok')).toMatchObject({ kind: 'resumed', attempts: 2 });
  });

  it('can report not_paused after a retry whose first attempt resumed the session (README caveat)', async () => {
    const outcome = await client.resume('reset-after-resume');
    expect(outcome).toMatchObject({ kind: 'not_paused', attempts: 2 });
    expect(stub.hits('reset-after-resume')).toBe(2);
  });

  it('stops after maxRetries and returns the last answer', async () => {
    const quick = createSessionsClient({ baseUrl: stub.url, apiKey: 'k', maxRetries: 1 });
    expect(await quick.resume('always-503')).toMatchObject({ kind: 'unexpected', status: 503, attempts: 2 });
    expect(stub.hits('always-503')).toBe(2);
    const never = createSessionsClient({ baseUrl: stub.url, apiKey: 'k', maxRetries: 0 });
    expect(await never.resume('always-503')).toMatchObject({ attempts: 1 });
  });
});

describe('failures without an answer', () => {
  it('throws SessionsClientError `timeout` with the abort reason as cause', async () => {
    const slow = createSessionsClient({ baseUrl: stub.url, apiKey: 'k', timeoutMs: 200 });
    const error = await slow.resume('hang').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionsClientError);
    expect(error).toMatchObject({ code: 'timeout', attempts: 1 });
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError' });
  });

  it('throws SessionsClientError `timeout` when the body stops arriving after the headers', async () => {
    const slow = createSessionsClient({ baseUrl: stub.url, apiKey: 'k', timeoutMs: 300 });
    await expect(slow.resume('hang-body')).rejects.toMatchObject({ name: 'SessionsClientError', code: 'timeout' });
  });

  it('throws SessionsClientError `network` for a refused connection, after its retries', async () => {
    const dead = createSessionsClient({ baseUrl: `http://127.0.0.1:${await getFreePort()}`, apiKey: 'k', maxRetries: 1 });
    const error = await dead.resume('x').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'SessionsClientError', code: 'network', attempts: 2 });
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  it('throws SessionsClientError `aborted` when the caller aborts', async () => {
    const controller = new AbortController();
    const pending = client.resume('hang', { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
  });
});

describe('request shape', () => {
  it.each(['a/b', 'a?b=1', 'a#b', 'with space', 'ünïcødé-会话', '%2F', 'a+b'])('sends session id %j as one percent-encoded path segment', async (id) => {
    const outcome = await client.resume(id);
    expect(outcome.kind).toBe('resumed');
    const seen = stub.requests.at(-1);
    expect(seen?.sessionId).toBe(id);
    expect(seen?.rawUrl).toBe(`/v1/sessions/${encodeURIComponent(id)}/resume`);
  });

  it('refuses ids that cannot be a path segment with a TypeError', async () => {
    await expect(client.resume('')).rejects.toBeInstanceOf(TypeError);
    await expect(client.resume('..')).rejects.toThrow(/path segment/);
  });

  it('sends the bearer key, a User-Agent, per-call headers, and no body', async () => {
    await client.resume('sess_headers', { headers: { Prefer: 'code=200' } });
    const seen = stub.requests.at(-1);
    expect(seen?.method).toBe('POST');
    expect(seen?.headers.authorization).toBe('Bearer test-key');
    expect(seen?.headers['user-agent']).toBe(`session-resume-api/${PACKAGE_VERSION}`);
    expect(seen?.headers.prefer).toBe('code=200');
    expect(seen?.headers['content-length'] ?? '0').toBe('0');
    expect(seen?.headers['content-type']).toBeUndefined();
  });

  it('goes through the fetch option, and keeps a base URL path prefix', async () => {
    const urls: string[] = [];
    const spied = createSessionsClient({
      baseUrl: `${stub.url}/`,
      apiKey: 'k',
      userAgent: 'custom/1',
      fetch: (request) => {
        urls.push(request.url);
        return fetch(request);
      },
    });
    expect((await spied.resume('s1')).kind).toBe('resumed');
    expect(urls).toEqual([`${stub.url}/v1/sessions/s1/resume`]);
    expect(stub.requests.at(-1)?.headers['user-agent']).toBe('custom/1');
  });

  it('exposes the typed openapi-fetch client as raw, with the same key', async () => {
    const { data, error, response } = await client.raw.POST('/v1/sessions/{session_id}/resume', {
      params: { path: { session_id: 'raw_1' } },
    });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data?.success).toBe(true);
    expect(stub.requests.at(-1)?.headers.authorization).toBe('Bearer test-key');
  });
});

describe('options are checked at creation', () => {
  it.each([
    [{ baseUrl: '', apiKey: 'k' }, /baseUrl is required/],
    [{ baseUrl: 'api.example.com', apiKey: 'k' }, /not an absolute URL/],
    [{ baseUrl: 'ftp://api.example.com', apiKey: 'k' }, /https/],
    [{ baseUrl: 'https://api.example.com/v1', apiKey: 'k' }, /ends with \/v1/],
    [{ baseUrl: 'https://api.example.com?x=1', apiKey: 'k' }, /query/],
    [{ baseUrl: 'https://api.example.com', apiKey: '' }, /apiKey is required/],
    [{ baseUrl: 'https://api.example.com', apiKey: 'a b' }, /whitespace/],
    [{ baseUrl: 'https://api.example.com', apiKey: 'k', timeoutMs: 0 }, /timeoutMs/],
    [{ baseUrl: 'https://api.example.com', apiKey: 'k', maxRetries: 1.5 }, /maxRetries must be an integer/],
    [{ baseUrl: 'https://api.example.com', apiKey: 'k', maxRetries: -1 }, /maxRetries/],
  ])('rejects %j', (options, message) => {
    expect(() => createSessionsClient(options)).toThrow(message);
  });
});

describe('pure parts', () => {
  it('decides the marker before the status, and success before the marker', () => {
    const answer = (status: number, text: string) => toResumeOutcome({ sessionId: 's', status, headers: new Headers(), text, attempts: 1 });
    expect(answer(404, '{"error":"not_paused"}').kind).toBe('not_paused');
    expect(answer(503, 'not_paused').kind).toBe('not_paused');
    expect(answer(409, 'Session s is not paused (not_paused)').kind).toBe('not_paused');
    expect(answer(200, '{"success":true,"message":"was not_paused before"}').kind).toBe('resumed');
    expect(answer(200, '{"success":false,"message":"no"}').kind).toBe('unexpected');
    expect(answer(204, '').kind).toBe('unexpected');
    expect(answer(502, '')).toMatchObject({ kind: 'unexpected', message: 'HTTP 502' });
  });

  it('keeps PACKAGE_VERSION equal to package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../client/package.json', import.meta.url), 'utf8')) as { version: string };
    expect(PACKAGE_VERSION).toBe(pkg.version);
  });
});
