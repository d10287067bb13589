/**
 * The reference server enforces the spec's bounds through the validator and sends the
 * rate-limit and CORS headers the spec declares (x-decisions: session-id-format,
 * rate-limit-headers, cors-headers), checked over real HTTP on every answer against the
 * operation's declared responses, headers included.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createResponseCheck } from '../../../cli/conformance/response-check.js';
import { createApp, type AppDeps } from '../../../server/app.js';
import { createMemorySessionStore } from '../../../server/sessions/memory-session-store.js';
import { contract } from '@session-resume-api/runtime/contract';
import { RESUME_PATH } from '@session-resume-api/runtime/resume-path';
import { listen, type Listening } from '../../helpers/listen.js';

const API_KEY = 'bounds-key';
const ORIGIN = 'https://app.example.org';
const running: Listening[] = [];
const checkAnswer = createResponseCheck(contract, RESUME_PATH, 'post');

afterAll(async () => {
  await Promise.all(running.map((s) => s.close()));
});

async function serve(overrides: Partial<AppDeps> = {}): Promise<string> {
  const store = createMemorySessionStore();
  await store.seed([
    { id: 'b_paused', status: 'paused' },
    { id: 'b_running', status: 'running' },
  ]);
  const server = await listen(await createApp({ store, apiKeys: [API_KEY, 'bounds-other'], ...overrides }));
  running.push(server);
  return server.url;
}

interface Sent {
  status: number;
  headers: Headers;
  text: string;
}

async function post(url: string, id: string, init: { key?: string | null; headers?: Record<string, string>; body?: string } = {}): Promise<Sent> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key !== null) headers.authorization = `Bearer ${init.key ?? API_KEY}`;
  const res = await fetch(`${url}/v1/sessions/${encodeURIComponent(id)}/resume`, { method: 'POST', headers, body: init.body });
  const answer = { status: res.status, headers: res.headers, text: await res.text() };
  // Every answer matches its declared response: status, body schema and declared headers.
  expect(checkAnswer(answer), `${answer.status} ${answer.text}`).toEqual([]);
  return answer;
}

/** The `r=`, `t=`, `q=` and `w=` parameters of the draft-8 fields, as numbers. */
function rateFields(headers: Headers): { r: number; t: number; q: number; w: number } | undefined {
  const rate = headers.get('ratelimit');
  const policy = headers.get('ratelimit-policy');
  if (!rate || !policy) return undefined;
  const param = (text: string, name: string) => Number(new RegExp(`;\\s*${name}=(\\d+)`).exec(text)?.[1] ?? NaN);
  return { r: param(rate, 'r'), t: param(rate, 't'), q: param(policy, 'q'), w: param(policy, 'w') };
}

/** Whether `s` has a C0 control character or DEL, which the spec's session id pattern refuses. */
const hasControl = (s: string) => [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

describe('session id bounds (x-decisions: session-id-format)', () => {
  it('answers 256 characters 404 and 257 characters 400 in the Error body, after the key check', async () => {
    const url = await serve();
    expect((await post(url, 'a'.repeat(256))).status).toBe(404);
    const over = await post(url, 'a'.repeat(257));
    expect(over.status).toBe(400);
    expect(JSON.parse(over.text)).toMatchObject({ success: false, error: 'bad_request' });
    expect(JSON.parse(over.text).message).toMatch(/session_id/);
    expect((await post(url, 'a'.repeat(257), { key: null })).status).toBe(401);
    expect((await post(url, 'a'.repeat(257), { key: 'wrong' })).status).toBe(401);
  });

  it('answers ids with control characters 400, and 401 without a key', async () => {
    const url = await serve();
    for (const id of ['a\nb', 'tab\there', 'nul\u0000', 'del\u007f', '\u001b[31mred']) {
      expect((await post(url, id)).status, JSON.stringify(id)).toBe(400);
      expect((await post(url, id, { key: null })).status, JSON.stringify(id)).toBe(401);
    }
  });

  it('property: an id within the bounds is looked up (404), one outside them is refused (400); never a 500', async () => {
    const url = await serve();
    const control = fc.constantFrom(...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)), '\u007f');
    const inside = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }).filter((s) => !hasControl(s) && s.length <= 256 && s !== '.' && s !== '..');
    const outside = fc.oneof(
      fc.tuple(fc.string({ maxLength: 20 }), control, fc.string({ maxLength: 20 })).map(([a, c, b]) => a + c + b),
      fc.string({ minLength: 257, maxLength: 400, unit: 'binary-ascii' }).filter((s) => s !== '.' && s !== '..'),
    );
    const statusOf = async (id: string) => (await post(url, id)).status;
    await fc.assert(
      fc.asyncProperty(inside, async (id) => (await statusOf(id)) === 404),
      { numRuns: 40 },
    );
    await fc.assert(
      fc.asyncProperty(outside, async (id) => (await statusOf(id)) === 400),
      { numRuns: 40 },
    );
  });
});

describe('rate-limit fields (x-decisions: rate-limit-headers)', () => {
  it('every counted answer carries RateLimit and RateLimit-Policy; the remaining count goes down to the 429', async () => {
    const url = await serve({ rateLimit: { limit: 7, windowMs: 60_000 } });
    const answers = [
      await post(url, 'b_paused'),
      await post(url, 'b_running'),
      await post(url, 'nobody'),
      await post(url, 'a'.repeat(300)),
      await post(url, 'nobody', { headers: { 'content-type': 'application/json' }, body: '{oops' }),
      await post(url, 'nobody', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(200_000) }) }),
      await post(url, 'nobody', { headers: { 'content-type': 'text/plain' }, body: 'hi' }),
      await post(url, 'nobody'),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 409, 404, 400, 400, 413, 415, 429]);
    const fields = answers.map((a) => rateFields(a.headers));
    expect(fields.map((f) => f?.r)).toEqual([6, 5, 4, 3, 2, 1, 0, 0]);
    for (const f of fields) expect(f).toMatchObject({ q: 7, w: 60 });
    for (const f of fields) expect(f!.t >= 0 && f!.t <= 60).toBe(true);
    const retryAfter = Number(answers[7]!.headers.get('retry-after'));
    expect(retryAfter >= 1 && retryAfter <= 60).toBe(true);
  });

  it('401 answers carry no rate-limit fields and do not use up the key’s quota', async () => {
    const url = await serve({ rateLimit: { limit: 2, windowMs: 60_000 } });
    for (let i = 0; i < 3; i += 1) {
      const refused = await post(url, 'b_running', { key: 'wrong' });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('ratelimit')).toBeNull();
    }
    expect(rateFields((await post(url, 'b_running')).headers)?.r).toBe(1);
  });

  it('sends no rate-limit fields when the limit is off', async () => {
    const url = await serve();
    expect((await post(url, 'b_running')).headers.get('ratelimit')).toBeNull();
  });

  it('refuses a window over one day at creation (Retry-After stays within its bound)', async () => {
    const store = createMemorySessionStore();
    await expect(createApp({ store, apiKeys: ['k'], rateLimit: { limit: 1, windowMs: 86_400_001 } })).rejects.toThrow(/windowMs/);
  });
});

describe('CORS headers (x-decisions: cors-headers)', () => {
  it('are on every answer to an allowed origin, 401 and 429 included, and expose the rate-limit fields', async () => {
    const url = await serve({ corsOrigins: [ORIGIN], rateLimit: { limit: 1, windowMs: 60_000 } });
    const origin = { origin: ORIGIN };
    const answers = [
      await post(url, 'b_running', { key: null, headers: origin }),
      await post(url, 'b_running', { headers: origin }),
      await post(url, 'b_running', { headers: origin }),
    ];
    expect(answers.map((a) => a.status)).toEqual([401, 409, 429]);
    for (const a of answers) {
      expect(a.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      const exposed = a.headers.get('access-control-expose-headers')?.toLowerCase().split(/,\s*/);
      expect(exposed).toEqual(expect.arrayContaining(['ratelimit', 'ratelimit-policy', 'retry-after', 'www-authenticate']));
    }
  });

  it('are absent for an origin that is not allowed', async () => {
    const url = await serve({ corsOrigins: [ORIGIN] });
    const answer = await post(url, 'b_running', { headers: { origin: 'https://elsewhere.example.com' } });
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});
