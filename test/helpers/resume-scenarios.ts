/**
 * The resume scenarios of issue #3, written once and run against the reference server
 * directly (test/unit/server/app.test.ts) and through `prism proxy --errors`
 * (test/contract/server-prism.test.ts). Every answer is also checked against the spec's
 * own schemas. Each scenario uses its own sessions, so the order does not matter.
 */
import { expect } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';
import type { SessionSeed } from '../../server/sessions/session-store.js';

/** The sessions the scenarios expect; seed them into the server under test. */
export const SCENARIO_SESSIONS: SessionSeed[] = [
  'resume-ok',
  'resume-twice',
  'lowercase-scheme',
  'json-no-body',
  'json-empty-body',
  'json-empty-object',
  'json-extra-members',
  'unauth-paused',
  'was_not_paused_before',
].map((name) => ({ id: `sc_${name}`, status: 'paused' }));
SCENARIO_SESSIONS.push({ id: 'sc_running', status: 'running' }, { id: 'sc_cancelled', status: 'cancelled' });

/** Where a scenario sends its requests; `fetch` lets the Prism run inspect every answer (default: global fetch). */
export interface ScenarioContext {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
}

/**
 * One scenario: `viaPrism` is false when Prism answers the request itself instead of
 * forwarding it (a request the spec does not allow), or cannot handle it (see the scenario).
 */
export interface ResumeScenario {
  name: string;
  viaPrism: boolean;
  run(ctx: ScenarioContext): Promise<void>;
}

const JSON_TYPE = { 'content-type': 'application/json' };

async function resume(ctx: ScenarioContext, id: string, init: { headers?: Record<string, string>; body?: string; method?: string } = {}) {
  const res = await (ctx.fetch ?? fetch)(`${ctx.baseUrl}/v1/sessions/${encodeURIComponent(id)}/resume`, {
    method: init.method ?? 'POST',
    headers: init.headers ?? {},
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

type Answer = Awaited<ReturnType<typeof resume>>;

function expectResumed(answer: Answer) {
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(contract.validate('ResumeResult', answer.json())).toMatchObject({ ok: true });
  expect(answer.json().success).toBe(true);
}

function expectError(answer: Answer, status: number, code: string) {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(contract.validate('Error', answer.json())).toMatchObject({ ok: true });
  expect(answer.json().error).toBe(code);
  expect(answer.text).not.toMatch(/\bat .+\.(ts|js):\d+/); // no stack trace
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * Sends `headers` for an existing and an unknown session: both get the same 401 with
 * `challenge`, so an unauthenticated caller learns nothing about which sessions exist.
 */
async function expectSameChallenge(ctx: ScenarioContext, headers: Record<string, string>, challenge: string) {
  const known = await resume(ctx, 'sc_unauth-paused', { headers });
  const unknown = await resume(ctx, 'sc_does_not_exist', { headers });
  for (const answer of [known, unknown]) {
    expectError(answer, 401, 'unauthorized');
    expect(answer.headers.get('www-authenticate')).toBe(challenge);
  }
  expect(known.text).toBe(unknown.text);
}

/** All scenarios, in a stable order. */
export const resumeScenarios: ResumeScenario[] = [
  {
    name: 'a paused session resumes: 200 ResumeResult with success true',
    viaPrism: true,
    async run(ctx) {
      const { apiKey } = ctx;
      expectResumed(await resume(ctx, 'sc_resume-ok', { headers: auth(apiKey) }));
    },
  },
  {
    name: 'a second resume gets 409 whose body text contains not_paused',
    viaPrism: true,
    async run(ctx) {
      const { apiKey } = ctx;
      expectResumed(await resume(ctx, 'sc_resume-twice', { headers: auth(apiKey) }));
      const second = await resume(ctx, 'sc_resume-twice', { headers: auth(apiKey) });
      expectError(second, 409, 'not_paused');
      expect(second.text).toContain('not_paused');
    },
  },
  {
    name: 'only the not_paused answer carries the marker, whatever the session id holds',
    viaPrism: true,
    async run(ctx) {
      const resumed = await resume(ctx, 'sc_was_not_paused_before', { headers: auth(ctx.apiKey) });
      expectResumed(resumed);
      const unknown = await resume(ctx, 'sc_not_paused', { headers: auth(ctx.apiKey) });
      expectError(unknown, 404, 'not_found');
      for (const answer of [resumed, unknown]) expect(answer.text).not.toContain('not_paused');
    },
  },
  {
    name: 'running and cancelled sessions get not_paused',
    viaPrism: true,
    async run(ctx) {
      const { apiKey } = ctx;
      for (const id of ['sc_running', 'sc_cancelled']) {
        const answer = await resume(ctx, id, { headers: auth(apiKey) });
        expectError(answer, 409, 'not_paused');
        expect(answer.json().message).toContain('not_paused');
      }
    },
  },
  {
    name: 'an unknown session id gets 404 not_found',
    viaPrism: true,
    async run(ctx) {
      const { apiKey } = ctx;
      expectError(await resume(ctx, 'sc_does_not_exist', { headers: auth(apiKey) }), 404, 'not_found');
    },
  },
  {
    name: 'the scheme name matches case-insensitively (bearer, BEARER)',
    // Prism 5.14.2 matches "Bearer" case-sensitively (against RFC 7235 §2.1) and answers 401 itself.
    viaPrism: false,
    async run(ctx) {
      const { apiKey } = ctx;
      expectResumed(await resume(ctx, 'sc_lowercase-scheme', { headers: { authorization: `bearer ${apiKey}` } }));
      const upper = await resume(ctx, 'sc_lowercase-scheme', { headers: { authorization: `BEARER ${apiKey}` } });
      expectError(upper, 409, 'not_paused');
    },
  },
  {
    name: 'a wrong key gets 401 with WWW-Authenticate error="invalid_token", whether the session exists or not',
    viaPrism: true,
    run: (ctx) => expectSameChallenge(ctx, auth('wrong-key'), 'Bearer realm="session-resume-api", error="invalid_token"'),
  },
  {
    name: 'no Authorization header gets 401 with a challenge without error code (RFC 6750 §3.1)',
    viaPrism: false,
    run: (ctx) => expectSameChallenge(ctx, {}, 'Bearer realm="session-resume-api"'),
  },
  {
    name: 'a malformed Authorization header (Basic, Bearer without token) gets 401',
    viaPrism: false,
    async run(ctx) {
      for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Bearer a b', 'Token abc']) {
        const answer = await resume(ctx, 'sc_unauth-paused', { headers: { authorization } });
        expectError(answer, 401, 'unauthorized');
        expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="session-resume-api"');
      }
    },
  },
  {
    name: 'authentication runs before the body is judged: without a key, bad, oversized or text bodies get 401',
    viaPrism: false,
    async run(ctx) {
      const bodies: [Record<string, string>, string][] = [
        [JSON_TYPE, '{'],
        [JSON_TYPE, '[]'],
        [JSON_TYPE, JSON.stringify({ padding: 'x'.repeat(101 * 1024) })],
        [{ 'content-type': 'text/plain' }, 'resume please'],
      ];
      for (const [headers, body] of bodies) {
        expectError(await resume(ctx, 'sc_unauth-paused', { headers, body }), 401, 'unauthorized');
      }
    },
  },
  {
    name: 'Content-Type application/json with no body is accepted',
    viaPrism: true,
    async run(ctx) {
      const { apiKey } = ctx;
      expectResumed(await resume(ctx, 'sc_json-no-body', { headers: { ...auth(apiKey), ...JSON_TYPE } }));
    },
  },
  {
    name: 'Content-Type application/json with an empty body is accepted',
    viaPrism: true,
    async run(ctx) {
      const { apiKey } = ctx;
      expectResumed(await resume(ctx, 'sc_json-empty-body', { headers: { ...auth(apiKey), ...JSON_TYPE }, body: '' }));
    },
  },
  {
    name: 'a {} body is accepted',
    viaPrism: true,
    async run(ctx) {
      const { apiKey } = ctx;
      expectResumed(await resume(ctx, 'sc_json-empty-object', { headers: { ...auth(apiKey), ...JSON_TYPE }, body: '{}' }));
    },
  },
  {
    name: 'unknown members of a JSON object are ignored',
    viaPrism: true,
    async run(ctx) {
      const { apiKey } = ctx;
      const body = JSON.stringify({ reason: 'approved', nested: { a: [1, 2] } });
      expectResumed(await resume(ctx, 'sc_json-extra-members', { headers: { ...auth(apiKey), ...JSON_TYPE }, body }));
    },
  },
  {
    name: 'a body over 100 KB gets 413 payload_too_large',
    viaPrism: true,
    async run(ctx) {
      const { apiKey } = ctx;
      const body = JSON.stringify({ padding: 'x'.repeat(101 * 1024) });
      expectError(await resume(ctx, 'sc_running', { headers: { ...auth(apiKey), ...JSON_TYPE }, body }), 413, 'payload_too_large');
    },
  },
  {
    name: 'a body that is not JSON gets 400 bad_request',
    viaPrism: false,
    async run(ctx) {
      const { apiKey } = ctx;
      for (const body of ['{', 'not json', '"a string"', 'null']) {
        expectError(await resume(ctx, 'sc_running', { headers: { ...auth(apiKey), ...JSON_TYPE }, body }), 400, 'bad_request');
      }
    },
  },
  {
    name: 'JSON that is not an object gets 400 bad_request',
    viaPrism: false,
    async run(ctx) {
      const { apiKey } = ctx;
      for (const body of ['[]', '[{}]']) {
        expectError(await resume(ctx, 'sc_running', { headers: { ...auth(apiKey), ...JSON_TYPE }, body }), 400, 'bad_request');
      }
    },
  },
  {
    name: 'a text/plain body gets 415 unsupported_media_type',
    viaPrism: false,
    async run(ctx) {
      const { apiKey } = ctx;
      const headers = { ...auth(apiKey), 'content-type': 'text/plain' };
      expectError(await resume(ctx, 'sc_running', { headers, body: 'resume please' }), 415, 'unsupported_media_type');
    },
  },
  {
    name: 'another method on the resume path gets 405 method_not_allowed with Allow: POST',
    viaPrism: false,
    async run(ctx) {
      const { apiKey } = ctx;
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const answer = await resume(ctx, 'sc_running', { method, headers: auth(apiKey) });
        expectError(answer, 405, 'method_not_allowed');
        expect(answer.headers.get('allow')).toBe('POST');
      }
    },
  },
  {
    name: 'a path outside the contract gets 404 not_found in the Error shape',
    viaPrism: false,
    async run(ctx) {
      const { apiKey } = ctx;
      for (const path of ['/v1/sessions', '/v1/sessions/sc_running', '/v2/sessions/sc_running/resume']) {
        const res = await (ctx.fetch ?? fetch)(ctx.baseUrl + path, { method: 'POST', headers: auth(apiKey) });
        const text = await res.text();
        expect(res.status).toBe(404);
        expect(contract.validate('Error', JSON.parse(text))).toMatchObject({ ok: true });
      }
    },
  },
];
