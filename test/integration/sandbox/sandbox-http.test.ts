/**
 * The sandbox as `npm run sandbox` starts it, over HTTP: banner, key worlds and their
 * isolation, the control API, Prefer forcing, the event feed (JSON and SSE) and CORS.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract, loadContract } from '@session-resume-api/runtime/contract';
import { dedupeKey } from '@session-resume-api/runtime/event-identity';
import type { SchemaName } from '@session-resume-api/runtime/types';
import { createSandboxClient, newSandboxKey } from '../../../client/sandbox/index.js';
import { sandboxSpecPath } from '../../../server/sandbox/control-router.js';
import { startSandboxProcess, type SandboxProcess } from '../../helpers/sandbox-process.js';

const sandboxContract = loadContract(sandboxSpecPath);
let sandbox: SandboxProcess;

beforeAll(async () => {
  sandbox = await startSandboxProcess();
}, 40_000);
afterAll(async () => {
  expect(await sandbox?.stop()).toBe(0);
});

const freshKey = () => `sandbox_${randomUUID()}`;
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

async function resume(key: string | undefined, id: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${sandbox.url}/v1/sessions/${encodeURIComponent(id)}/resume`, {
    method: 'POST',
    headers: { ...(key ? auth(key) : {}), ...headers },
  });
  const body = (await res.json()) as Record<string, unknown>;
  // Every resume answer is one the main document allows.
  const schema = res.status === 200 ? 'ResumeResult' : 'Error';
  expect(contract.validate(schema, body).ok, JSON.stringify(body)).toBe(true);
  return { status: res.status, body, headers: res.headers };
}

async function control(key: string | undefined, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sandbox.url}/_sandbox${path}`, {
    method,
    headers: { ...(key ? auth(key) : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

function expectSchema(schema: string, value: unknown) {
  const check = sandboxContract.validate(schema as SchemaName, value);
  expect(check.ok, check.ok ? '' : check.message).toBe(true);
}

describe('start-up', () => {
  it('prints a ready-to-paste key and curl line that work as printed', async () => {
    expect(sandbox.output()).toContain('SANDBOX MODE');
    const curl = /curl -X POST (\S+) -H 'Authorization: Bearer (sandbox_\S+)'\n/.exec(sandbox.output());
    expect(curl?.[2]).toBe(sandbox.bannerKey);
    const res = await fetch(curl![1]!, { method: 'POST', headers: auth(curl![2]!) });
    expect(res.status).toBe(200);
  });
});

describe('keys and worlds', () => {
  it('answers 401 with the Bearer challenge to a token without the sandbox_ prefix and to none', async () => {
    for (const key of ['dev_key', 'sandbox_', undefined]) {
      const r = await resume(key, 'sess_paused_1');
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
      const c = await control(key, 'GET', '/sessions');
      expect(c.status).toBe(401);
      expect(c.body).toMatchObject({ success: false, error: 'unauthorized' });
      expect(c.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    }
  });

  it('gives each key its own world seeded from the demo set', async () => {
    const [a, b] = [freshKey(), freshKey()];
    expect((await resume(a, 'sess_paused_1')).status).toBe(200);
    expect((await resume(a, 'sess_paused_1')).body).toMatchObject({ error: 'not_paused' });
    // b never saw a's resume.
    expect((await resume(b, 'sess_paused_1')).status).toBe(200);
    expect((await resume(b, 'sess_running_1')).status).toBe(409);
    expect((await resume(b, 'nope')).status).toBe(404);
    const listA = await control(a, 'GET', '/sessions');
    expectSchema('SessionList', listA.body);
    expect((listA.body.sessions as { id: string; status: string }[]).map((s) => `${s.id}=${s.status}`)).toEqual([
      'sess_paused_1=running',
      'sess_paused_2=paused',
      'sess_paused_3=paused',
      'sess_running_1=running',
    ]);
    const eventsA = (await control(a, 'GET', '/events')).body.events as unknown[];
    const eventsB = (await control(b, 'GET', '/events')).body.events as unknown[];
    expect(eventsA).toHaveLength(1);
    expect(eventsB).toHaveLength(1);
  });
});

describe('control API', () => {
  it('creates and sets sessions, and reset restores the seed set and clears the feed', async () => {
    const key = freshKey();
    const put = await control(key, 'PUT', '/sessions/checkout%2F1', { status: 'paused' });
    expect(put.status).toBe(200);
    expectSchema('SandboxSession', put.body);
    expect(put.body).toMatchObject({ id: 'checkout/1', status: 'paused' });
    expect((await resume(key, 'checkout/1')).status).toBe(200);
    expect((await control(key, 'PUT', '/sessions/sess_paused_2', { status: 'cancelled' })).status).toBe(200);
    expect((await resume(key, 'sess_paused_2')).status).toBe(409);
    expect((await control(key, 'PUT', '/sessions/checkout%2F1', { status: 'paused' })).status).toBe(200);
    expect((await resume(key, 'checkout/1')).status).toBe(200);
    expect(((await control(key, 'GET', '/events')).body.events as unknown[]).length).toBe(2);

    const reset = await control(key, 'POST', '/reset');
    expect(reset.status).toBe(200);
    expectSchema('SessionList', reset.body);
    expect((reset.body.sessions as { id: string }[]).map((s) => s.id)).toEqual(['sess_paused_1', 'sess_paused_2', 'sess_paused_3', 'sess_running_1']);
    expect((await control(key, 'GET', '/events')).body.events).toEqual([]);
    expect((await resume(key, 'checkout/1')).status).toBe(404);
    expect((await resume(key, 'sess_paused_2')).status).toBe(200);
  });

  it('answers bad input with a 400 Error body, never a 500', async () => {
    const key = freshKey();
    for (const body of [{}, { status: '' }, { status: 7 }, { status: 'paused', extra: 1 }, '{not json', '[]']) {
      const r = await control(key, 'PUT', '/sessions/x', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ success: false, error: 'bad_request' });
    }
    const unknown = await control(key, 'DELETE', '/sessions/x');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, error: 'not_found' });
  });
});

describe('createSandboxClient against the sandbox', () => {
  it('sets up, reads and resets a world over HTTP', async () => {
    const apiKey = newSandboxKey();
    const client = createSandboxClient({ baseUrl: sandbox.url, apiKey });
    expect(await client.setSession('sess_e2e', 'paused')).toMatchObject({ id: 'sess_e2e', status: 'paused' });
    expect((await resume(apiKey, 'sess_e2e')).status).toBe(200);
    expect((await client.sessions()).find((s) => s.id === 'sess_e2e')?.status).toBe('running');
    expect((await client.events()).map((e) => e.payload.session.id)).toEqual(['sess_e2e']);
    expect((await client.reset()).some((s) => s.id === 'sess_e2e')).toBe(false);
    expect(await client.events()).toEqual([]);
    await expect(createSandboxClient({ baseUrl: sandbox.url, apiKey }).setSession('x', '')).rejects.toMatchObject({ status: 400 });
  });
});

describe('Prefer forcing', () => {
  it('answers the named example like Prism and changes no state', async () => {
    const key = freshKey();
    const limited = await resume(key, 'sess_paused_1', { prefer: 'code=429' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('30');
    expect(limited.body).toMatchObject({ error: 'rate_limited' });
    expect((await resume(key, 'sess_paused_1', { prefer: 'code=409, example=notPaused' })).status).toBe(409);
    expect((await resume(key, 'sess_paused_1', { prefer: 'example=notFound' })).status).toBe(404);
    expect((await resume(key, 'no_such_session', { prefer: 'code=200' })).status).toBe(200);
    const forced401 = await resume(key, 'sess_paused_1', { prefer: 'code=401, example=invalidToken' });
    expect(forced401.status).toBe(401);
    expect(forced401.headers.get('www-authenticate')).toMatch(/^Bearer/);
    // Nothing above flipped the session or emitted an event.
    expect((await control(key, 'GET', '/events')).body.events).toEqual([]);
    expect((await resume(key, 'sess_paused_1')).status).toBe(200);
  });

  it('answers a Prefer naming no example with 400, and still requires a sandbox key', async () => {
    const key = freshKey();
    const unknown = await resume(key, 'sess_paused_1', { prefer: 'code=418' });
    expect(unknown.status).toBe(400);
    expect(String(unknown.body.message)).toContain('code=429, example=rateLimited');
    expect((await resume(key, 'sess_paused_1', { prefer: 'code=404, example=rateLimited' })).status).toBe(400);
    expect((await resume('not-sandbox', 'sess_paused_1', { prefer: 'code=200' })).status).toBe(401);
    // A Prefer without code= or example= is ignored.
    expect((await resume(key, 'sess_paused_1', { prefer: 'respond-async' })).status).toBe(200);
  });
});

describe('event feed', () => {
  it('lists the webhook payloads oldest first with their delivery identity', async () => {
    const key = freshKey();
    await resume(key, 'sess_paused_2');
    await resume(key, 'sess_paused_1');
    await resume(key, 'sess_paused_1'); // 409: no event
    const feed = await control(key, 'GET', '/events');
    expectSchema('EventList', feed.body);
    const events = feed.body.events as { sequence: number; dedupeKey: string; payload: { event: string; session: { id: string }; timestamp: string } }[];
    expect(events.map((e) => [e.sequence, e.payload.session.id])).toEqual([
      [1, 'sess_paused_2'],
      [2, 'sess_paused_1'],
    ]);
    for (const e of events) {
      expect(contract.validate('SessionEvent', e.payload).ok).toBe(true);
      expect(e.payload.event).toBe('session.resumed');
      expect(e.dedupeKey).toBe(dedupeKey(e.payload));
    }
  });

  it('streams new events as Server-Sent Events, and replays after Last-Event-ID', async () => {
    const key = freshKey();
    await resume(key, 'sess_paused_1');
    const controller = new AbortController();
    const res = await fetch(`${sandbox.url}/_sandbox/events`, {
      headers: { ...auth(key), accept: 'text/event-stream', 'last-event-id': '0' },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const readUntil = async (count: number) => {
      while ((text.match(/^event: session-event$/gm) ?? []).length < count) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended early:\n${text}`);
        text += value;
      }
    };
    await readUntil(1); // the replayed one
    await resume(key, 'sess_paused_3');
    await readUntil(2);
    controller.abort();
    const messages = text.split('\n\n').filter((m) => m.startsWith('event: session-event'));
    const parsed = messages.map((m) => {
      const id = /^id: (\d+)$/m.exec(m)?.[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(m)![1]!) as { sequence: number; payload: { session: { id: string } } };
      expectSchema('SandboxEvent', data);
      expect(String(data.sequence)).toBe(id);
      return data.payload.session.id;
    });
    expect(parsed).toEqual(['sess_paused_1', 'sess_paused_3']);
  });

  it('takes the key as access_token on the event feed only (EventSource cannot send headers)', async () => {
    const key = freshKey();
    await resume(key, 'sess_paused_1');
    const feed = await fetch(`${sandbox.url}/_sandbox/events?access_token=${key}`);
    expect(feed.status).toBe(200);
    expect(((await feed.json()) as { events: unknown[] }).events).toHaveLength(1);
    expect((await fetch(`${sandbox.url}/_sandbox/sessions?access_token=${key}`)).status).toBe(401);
    expect((await fetch(`${sandbox.url}/_sandbox/events?access_token=dev_key`)).status).toBe(401);
  });
});

describe('CORS from another origin', () => {
  it('answers the preflight of a PUT with Prefer from any origin, and the real request carries Allow-Origin', async () => {
    const origin = 'http://frontend.test:5173';
    const preflight = await fetch(`${sandbox.url}/_sandbox/sessions/x`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization, content-type, prefer' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('prefer');
    const key = freshKey();
    const res = await fetch(`${sandbox.url}/v1/sessions/sess_paused_1/resume`, { method: 'POST', headers: { ...auth(key), origin, prefer: 'code=429' } });
    expect(res.status).toBe(429);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('Retry-After');
  });
});
