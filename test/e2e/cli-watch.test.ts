/**
 * `watch` as a proxy, run as its own process: in front of the reference server (the
 * conformance run, deliveries that fail once and are retried, signed) and of the sandbox (every
 * Prefer scenario) it finds no drift; in front of a server written here that drifts five ways
 * (ignores Idempotency-Key, 429 without Retry-After, not_paused answered 200, a new webhook-id
 * on a retry, a bad signature) it names each drift once, with its exchange, and nothing else.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createWebhookHeaders } from '@session-resume-api/runtime/delivery/webhook-headers';
import { listScenarios } from '@session-resume-api/runtime/scenarios';
import { generateWebhookSecret } from '../../cli/listen/run-listen.js';
import { runConformance } from '../../cli/conformance/run-conformance.js';
import { newSandboxKey } from '../../client/sandbox/index.js';
import { getFreePort } from '../helpers/free-port.js';
import { requestRaw } from '../helpers/raw-http.js';
import { listen, type Listening } from '../helpers/listen.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { startServerProcess } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';
import { startWatch, type WatchResult } from '../helpers/watch-process.js';

const API_KEY = 'watch-test-key-0123456789';
const SECRET = generateWebhookSecret();
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A receiver answering 503 (Retry-After: 1) to the first attempt of each webhook-id, 200 after; it counts deliveries. */
async function flakyReceiver(): Promise<Listening & { deliveries: () => number }> {
  const seen = new Set<string>();
  let deliveries = 0;
  const server = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      deliveries += 1;
      const id = String(req.headers['webhook-id']);
      const first = !seen.has(id);
      seen.add(id);
      if (first)
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"success":false,"error":"service_unavailable","message":"later"}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true,"duplicate":false}');
    });
  });
  cleanups.push(() => server.close());
  return { ...server, deliveries: () => deliveries };
}

const grades = (result: WatchResult) => Object.fromEntries(result.entries.map((e) => [e.rule, e.grade]));
const drifted = (result: WatchResult) => result.entries.filter((e) => e.grade === 'drift');
const resume = (base: string, id: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/v1/sessions/${encodeURIComponent(id)}/resume`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, ...headers } });

describe('watch in front of the reference server', () => {
  it('the conformance run, idempotent replays and retried signed deliveries: no drift', async () => {
    const receiver = await flakyReceiver();
    const webhookPort = await getFreePort();
    const server = await startServerProcess({
      API_KEYS: API_KEY,
      WEBHOOK_URL: `http://127.0.0.1:${webhookPort}/hooks`,
      WEBHOOK_INSECURE_LOCALHOST: '1',
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_RETRY_SCHEDULE: '0,200ms,200ms',
      RATE_LIMIT: '1000',
      CORS_ORIGINS: '*',
    });
    cleanups.push(() => server.stop());
    const watch = await startWatch([
      '--target',
      server.url,
      '--port',
      '0',
      '--webhook-target',
      receiver.url,
      '--webhook-port',
      String(webhookPort),
      '--secret',
      SECRET,
      '--schedule',
      '0,200ms,200ms',
    ]);
    const api = watch.apiUrl as string;
    const report = await runConformance({ baseUrl: api, apiKey: API_KEY, pausedSession: 'sess_paused_1', notPausedSession: 'sess_running_1' });
    expect(report.results.filter((r) => r.outcome === 'fail')).toEqual([]);
    for (const key of ['watch-k1', 'watch-k1']) await resume(api, 'sess_paused_2', { 'idempotency-key': key });
    // curl -X POST: no Content-Length, no body. The proxy passes it on as a bodiless request.
    const raw = `POST /v1/sessions/sess_paused_3/resume HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${API_KEY}\r\nConnection: close\r\n\r\n`;
    expect((await requestRaw(Number(new URL(api).port), raw)).status).toBe(200);
    // Each resume's event: refused once (503, Retry-After: 1), delivered on the retry.
    await waitFor(() => receiver.deliveries() >= 6, { timeoutMs: 20_000, what: 'three events, each delivered twice' });
    const result = await watch.stop();
    expect(drifted(result)).toEqual([]);
    expect(result.driftLines).toEqual([]);
    expect(result.code).toBe(0);
    expect(grades(result)).toMatchObject({
      'request-shape': 'pass',
      'response-shape': 'pass',
      'error-shape': 'pass',
      'not-paused': 'pass',
      'idempotent-replay': 'pass',
      'rate-limit-headers': 'pass',
      'webhook-shape': 'pass',
      'webhook-signature': 'pass',
      'webhook-id-stable': 'pass',
      'attempt-spacing': 'pass',
      'webhook-timestamp': 'pass',
    });
    expect(result.stdout + result.stderr).not.toContain(API_KEY);
  }, 90_000);

  it('the sandbox, every Prefer scenario of the spec and the stateful answers: no drift', async () => {
    const sandbox = await startSandboxProcess();
    cleanups.push(() => sandbox.stop());
    const watch = await startWatch(['--target', sandbox.url, '--port', '0']);
    const api = watch.apiUrl as string;
    const key = newSandboxKey();
    const send = (id: string, headers: Record<string, string> = {}) =>
      fetch(`${api}/v1/sessions/${id}/resume`, { method: 'POST', headers: { authorization: `Bearer ${key}`, ...headers } }).then((r) => r.status);
    const scenarios = listScenarios();
    for (const scenario of scenarios) expect(await send('sess_paused_3', { prefer: scenario.prefer })).toBe(scenario.status);
    expect([await send('sess_paused_1'), await send('sess_paused_1'), await send('sess_nope')]).toEqual([200, 409, 404]);
    const result = await watch.stop();
    expect(drifted(result)).toEqual([]);
    expect(result.code).toBe(0);
    expect(grades(result)).toMatchObject({ 'retry-after': 'pass', 'not-paused': 'pass', 'error-shape': 'pass', 'response-shape': 'pass' });
    expect(result.stdout + result.stderr).not.toContain(key);
  }, 90_000);
});

/** A service that drifts five ways, each on its own exchange. */
async function driftingServer(webhookUrl: () => string): Promise<Listening> {
  const running = new Set(['sess_running_1']);
  const json = { 'content-type': 'application/json' };
  const deliver = async (body: string, webhookId: string, secret: string) => {
    const headers = createWebhookHeaders({ secret })(webhookId, body);
    return fetch(webhookUrl(), { method: 'POST', headers: { ...json, ...headers }, body }).then((r) => r.status);
  };
  const server = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = decodeURIComponent(/^\/v1\/sessions\/([^/]+)\/resume$/.exec(req.url ?? '')?.[1] ?? '');
      if (id === 'sess_limited') return res.writeHead(429, json).end('{"success":false,"error":"rate_limited","message":"Too many requests."}');
      if (id === 'sess_running_1')
        return res.writeHead(200, json).end('{"success":false,"error":"not_paused","message":"Session is not paused (not_paused)."}');
      if (running.has(id)) return res.writeHead(409, json).end('{"success":false,"error":"not_paused","message":"Session is not paused (not_paused)."}');
      running.add(id);
      res.writeHead(200, json).end('{"success":true,"message":"Session resumed."}');
      const event = JSON.stringify({ event: 'session.resumed', session: { id }, timestamp: new Date().toISOString() });
      void (async () => {
        if (id === 'sess_a') {
          // Refused once, then retried after the schedule's delay, but under a new webhook-id.
          await deliver(event, 'msg_first', SECRET);
          await new Promise((r) => setTimeout(r, 1500));
          await deliver(event, 'msg_second', SECRET);
        } else await deliver(event, 'msg_other', generateWebhookSecret());
      })();
    });
  });
  cleanups.push(() => server.close());
  return server;
}

describe('watch in front of a drifting server', () => {
  it('names each drift once, with its exchange, and nothing else', async () => {
    const receiver = await flakyReceiver();
    let hooks = '';
    const server = await driftingServer(() => hooks);
    const watch = await startWatch([
      '--target',
      server.url,
      '--port',
      '0',
      '--webhook-target',
      receiver.url,
      '--webhook-port',
      '0',
      '--secret',
      SECRET,
      '--schedule',
      '0,1s',
    ]);
    hooks = `${watch.webhookUrl}/hooks`;
    const api = watch.apiUrl as string;
    const statuses = [];
    for (const [id, key] of [
      ['sess_a', 'k-1'],
      ['sess_a', 'k-1'],
      ['sess_limited', undefined],
      ['sess_running_1', undefined],
      ['sess_b', undefined],
    ] as const) {
      statuses.push((await resume(api, id, key ? { 'idempotency-key': key } : {})).status);
    }
    expect(statuses).toEqual([200, 409, 429, 200, 200]);
    // Every drift is printed as it is found: the five lines say the watch has seen them all.
    await waitFor(() => watch.stderr().split('\nDRIFT').length - 1 >= 5, { timeoutMs: 10_000, what: 'five drift lines' });
    await new Promise((r) => setTimeout(r, 300));
    const result = await watch.stop();
    expect(result.code).toBe(1);
    const drifts = drifted(result);
    expect(drifts.map((e) => e.rule).sort()).toEqual(['idempotent-replay', 'not-paused', 'retry-after', 'webhook-id-stable', 'webhook-signature']);
    for (const drift of drifts) expect(drift.exchanges).toHaveLength(1);
    const at = (rule: string) => drifts.find((e) => e.rule === rule)?.exchanges[0];
    expect(at('idempotent-replay')).toMatchObject({ method: 'POST', path: '/v1/sessions/sess_a/resume', status: 409 });
    expect(at('retry-after')).toMatchObject({ path: '/v1/sessions/sess_limited/resume', status: 429, fault: 'status 429 without Retry-After' });
    expect(at('not-paused')).toMatchObject({ path: '/v1/sessions/sess_running_1/resume', status: 200 });
    expect(at('webhook-id-stable')?.fault).toMatch(/webhook-id msg_second, but an earlier attempt .* carried msg_first/);
    expect(at('webhook-signature')).toMatchObject({ path: '/…', status: 503, fault: 'webhook-signature does not verify with the secret' });
    expect(result.driftLines).toHaveLength(5);
    expect(result.stdout + result.stderr).not.toMatch(/v1,[A-Za-z0-9+/=]{20,}/);
  }, 60_000);
});
