/** The reference server in-process over real HTTP (memory store): issue #3's rules one by one. */
import { readFileSync } from 'node:fs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractError, contract, specPath } from '@session-resume-api/runtime/contract';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { createApp, type AppDeps } from '../../../server/app.js';
import { checkAppContract } from '../../../server/start-up/contract-self-check.js';
import { resumeUrl } from '@session-resume-api/runtime/resume-path';
import { createMemorySessionStore } from '../../../server/sessions/memory-session-store.js';
import { StoreUnavailableError } from '../../../server/errors/store-errors.js';
import type { SessionStore } from '../../../server/sessions/session-store.js';
import type { WebhookDelivery } from '../../../server/webhooks/webhook-delivery.js';
import { listen, type Listening } from '../../helpers/listen.js';
import { resumeScenarios, SCENARIO_SESSIONS } from '../../helpers/resume-scenarios.js';

const API_KEY = 'test-key-1';
const running: Listening[] = [];

async function serve(overrides: Partial<AppDeps> = {}, seeds = SCENARIO_SESSIONS): Promise<Listening> {
  const store = overrides.store ?? createMemorySessionStore();
  await store.seed(seeds);
  const server = await listen(await createApp({ store, apiKeys: [API_KEY, 'other-key'], ...overrides }));
  running.push(server);
  return server;
}

afterAll(async () => {
  await Promise.all(running.map((s) => s.close()));
});

/** A memory store whose `method` always throws `error`. */
function failingStore(error: Error, method: 'resume' | 'ping' = 'resume'): SessionStore {
  const store = createMemorySessionStore();
  store[method] = async () => {
    throw error;
  };
  return store;
}

const post = (url: string, id: string, headers: Record<string, string> = { authorization: `Bearer ${API_KEY}` }) =>
  fetch(`${url}/v1/sessions/${encodeURIComponent(id)}/resume`, { method: 'POST', headers });

describe('resume scenarios, direct', () => {
  let server: Listening;
  beforeAll(async () => {
    server = await serve();
  });
  for (const scenario of resumeScenarios) {
    it(scenario.name, () => scenario.run({ baseUrl: server.url, apiKey: API_KEY }));
  }
});

describe('operational endpoints', () => {
  it('GET /healthz answers 200 without auth when the store answers', async () => {
    const { url } = await serve();
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
  });

  it('GET /healthz answers 503 when the store does not', async () => {
    const { url } = await serve({ store: failingStore(new StoreUnavailableError('down'), 'ping') });
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(503);
    expect(contract.validate('Error', await res.json())).toMatchObject({ ok: true });
  });

  it('GET /openapi.yaml serves the raw spec file without auth', async () => {
    const { url } = await serve();
    const res = await fetch(`${url}/openapi.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/yaml/);
    expect(await res.text()).toBe(readFileSync(specPath, 'utf8'));
  });

  it('every answer carries a request id, and a sane incoming X-Request-Id is kept', async () => {
    const { url } = await serve();
    const generated = await post(url, 'sc_running');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await fetch(`${url}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
    expect(kept.headers.get('x-request-id')).toBe('abc-123');
  });
});

describe('error messages', () => {
  it('a 400 that quotes the request never carries the not_paused marker', async () => {
    const { url } = await serve();
    const res = await fetch(`${url}/v1/sessions/not_paused%E0%A4%A/resume`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(contract.validate('Error', JSON.parse(text))).toMatchObject({ ok: true });
    expect(text).not.toContain('not_paused');
  });
});

describe('store failures and defects', () => {
  it('a store that is unavailable gives 503 service_unavailable with Retry-After', async () => {
    const { url } = await serve({ store: failingStore(new StoreUnavailableError('Redis resume failed: connection refused')) });
    const res = await post(url, 'sc_resume-ok');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    const body = await res.json();
    expect(body.error).toBe('service_unavailable');
    expect(JSON.stringify(body)).not.toContain('connection refused');
  });

  it('a defect gives 500 internal_error without its message or stack', async () => {
    const { url } = await serve({ store: failingStore(new Error('secret internal detail')) });
    const res = await post(url, 'sc_resume-ok');
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(contract.validate('Error', JSON.parse(text))).toMatchObject({ ok: true });
    expect(text).not.toContain('secret');
  });
});

describe('webhook delivery wiring', () => {
  const recorder = () => {
    const events: SessionEvent[] = [];
    const delivery: WebhookDelivery = { enqueue: (e) => void events.push(e.payload), close: async () => {} };
    return { events, delivery };
  };

  it('hands one session.resumed event per successful resume, none for 404 and 409', async () => {
    const { events, delivery } = recorder();
    const { url } = await serve({ webhookDelivery: delivery });
    const before = Date.now();
    expect((await post(url, 'sc_resume-ok')).status).toBe(200);
    expect((await post(url, 'sc_resume-ok')).status).toBe(409);
    expect((await post(url, 'sc_nope')).status).toBe(404);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: 'session.resumed', session: { id: 'sc_resume-ok' } });
    expect(events[0]!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(events[0]!.timestamp)).toBeGreaterThanOrEqual(before - 1);
    expect(contract.validate('SessionEvent', events[0])).toMatchObject({ ok: true });
  });

  it('a delivery that throws or never settles does not change or hold up the answer', async () => {
    const throwing: WebhookDelivery = {
      enqueue: () => {
        throw new Error('queue full');
      },
      close: async () => {},
    };
    const hanging = { enqueue: () => new Promise(() => {}), close: async () => {} } as unknown as WebhookDelivery;
    for (const webhookDelivery of [throwing, hanging]) {
      const { url } = await serve({ webhookDelivery });
      expect((await post(url, 'sc_resume-ok')).status).toBe(200);
    }
  });
});

describe('rate limit per API key', () => {
  it('answers 429 rate_limited with Retry-After once a key is over its limit; other keys are counted apart', async () => {
    const { url } = await serve({ rateLimit: { limit: 2, windowMs: 60_000 } });
    expect((await post(url, 'sc_running')).status).toBe(409);
    expect((await post(url, 'sc_running')).status).toBe(409);
    const limited = await post(url, 'sc_running');
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    const body = await limited.json();
    expect(body.error).toBe('rate_limited');
    expect(contract.validate('Error', body)).toMatchObject({ ok: true });
    expect((await post(url, 'sc_running', { authorization: 'Bearer other-key' })).status).toBe(409);
  });

  it('is off by default', async () => {
    const { url } = await serve();
    const statuses = await Promise.all(Array.from({ length: 30 }, () => post(url, 'sc_running').then((r) => r.status)));
    expect(new Set(statuses)).toEqual(new Set([409]));
  });
});

describe('CORS', () => {
  const preflight = (url: string, origin: string) =>
    fetch(`${url}/v1/sessions/x/resume`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });

  it('answers a preflight from an allowed origin, allowing Authorization and Content-Type', async () => {
    const { url } = await serve({ corsOrigins: ['https://app.example.org'] });
    const res = await preflight(url, 'https://app.example.org');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.org');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    const actual = await post(url, 'sc_running', { authorization: `Bearer ${API_KEY}`, origin: 'https://app.example.org' });
    expect(actual.headers.get('access-control-allow-origin')).toBe('https://app.example.org');
    // Fetch standard, CORS-safelisted response headers: others are readable cross-origin only when exposed.
    const exposed = actual.headers
      .get('access-control-expose-headers')
      ?.split(/,\s*/)
      .map((h) => h.toLowerCase());
    expect(exposed).toEqual(expect.arrayContaining(['retry-after', 'www-authenticate', 'x-request-id']));
  });

  it('gives no CORS headers to other origins, nor to anyone by default', async () => {
    const configured = await serve({ corsOrigins: ['https://app.example.org'] });
    const plain = await serve();
    for (const { url } of [configured, plain]) {
      const res = await preflight(url, 'https://evil.example.com');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.status).not.toBe(204);
    }
  });
});

describe('createApp options', () => {
  const store: SessionStore = createMemorySessionStore();

  it('refuses missing or empty API keys, bad origins and bad rate limits', async () => {
    await expect(createApp({ store, apiKeys: [] })).rejects.toThrow(expect.objectContaining({ name: 'OptionsError', option: 'apiKeys' }));
    await expect(createApp({ store, apiKeys: [] })).rejects.toThrow(OptionsError);
    await expect(createApp({ store, apiKeys: [''] })).rejects.toThrow(/apiKeys/);
    await expect(createApp({ store, apiKeys: ['k'], corsOrigins: [''] })).rejects.toThrow(/corsOrigins/);
    await expect(createApp({ store, apiKeys: ['k'], rateLimit: { limit: 0, windowMs: 1000 } })).rejects.toThrow(/rateLimit.limit/);
  });

  it('a broken spec fails at creation with a ContractError naming the file, not at the first request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spec-'));
    const broken = join(dir, 'openapi.yaml');
    writeFileSync(broken, 'openapi: 3.1.0\ninfo: [not, a, mapping\n');
    await expect(createApp({ store, apiKeys: ['k'], specPath: broken })).rejects.toThrow(ContractError);
    await expect(createApp({ store, apiKeys: ['k'], specPath: broken })).rejects.toThrow(broken);
  });

  it('a spec the validator cannot use: createApp resolves, the start-up self-check refuses it naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spec-'));
    const bad = join(dir, 'openapi.yaml');
    // Parses and compiles, but the resume operation points at a response that does not exist.
    writeFileSync(bad, readFileSync(specPath, 'utf8').replace('$ref: "#/components/responses/BadRequest"', '$ref: "#/components/responses/Missing"'));
    // The validator takes the document up on the first request: createApp has nothing to refuse.
    const server = await listen(await createApp({ store, apiKeys: ['k'], specPath: bad }));
    try {
      const answer = await fetch(resumeUrl(server.url, 'sess_1'), { method: 'POST', headers: { authorization: 'Bearer k' } });
      expect(answer.status).toBe(500);
    } finally {
      await server.close();
    }
    const error = await checkAppContract({ specPath: bad }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractError);
    expect((error as Error).message).toContain(bad);
    expect((error as Error).message).toContain('#/components/responses/Missing');
  });

  it('the start-up self-check passes the shipped spec and refuses a file that does not parse', async () => {
    await expect(checkAppContract()).resolves.toBeUndefined();
    await expect(checkAppContract({ validateResponses: false })).resolves.toBeUndefined();
    const dir = mkdtempSync(join(tmpdir(), 'spec-'));
    const broken = join(dir, 'openapi.yaml');
    writeFileSync(broken, 'openapi: 3.1.0\ninfo: [not, a, mapping\n');
    await expect(checkAppContract({ specPath: broken })).rejects.toThrow(broken);
  });

  it('a spec given by path is still checked against the OpenAPI schema (compiled on that check only)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spec-'));
    const bad = join(dir, 'openapi.yaml');
    // Loads and compiles, but breaks the OpenAPI 3.1 schema: info.version is required.
    writeFileSync(bad, readFileSync(specPath, 'utf8').replace(/^ {2}version: .*\n/m, ''));
    const silenced = console.error;
    console.error = () => undefined; // the validator prints the schema errors itself
    const error = await checkAppContract({ specPath: bad })
      .catch((e: unknown) => e)
      .finally(() => (console.error = silenced));
    expect(error).toBeInstanceOf(ContractError);
    expect((error as Error).message).toContain(bad);
  });
});
