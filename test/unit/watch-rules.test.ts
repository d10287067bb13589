/**
 * `watch`'s rules on exchanges built here: a clean exchange passes every rule it reaches, and
 * each behaviour drift of the issue's list is named by exactly one rule with its exchange.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createWebhookHeaders } from '@session-resume-api/runtime/delivery/webhook-headers';
import { headerList, type Exchange } from '../../cli/watch/exchange.js';
import { createWatcher } from '../../cli/watch/watcher.js';
import { WATCH_RULES } from '../../cli/watch/watch-rules.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0123456789ab';
const T0 = Date.parse('2026-11-28T01:00:00.000Z');
const json = { 'content-type': 'application/json; charset=utf-8' };
const RESUMED = JSON.stringify({ success: true, message: 'Session resumed.' });
const NOT_PAUSED = JSON.stringify({ success: false, error: 'not_paused', message: 'Session is not paused (not_paused).' });

function resume(
  at: number,
  status: number,
  body: string,
  extra: { request?: Record<string, string>; response?: Record<string, string>; id?: string } = {},
): Exchange {
  return {
    kind: 'api',
    method: 'POST',
    target: `/v1/sessions/${extra.id ?? 'sess_paused_1'}/resume`,
    startedAt: at,
    endedAt: at + 5,
    requestHeaders: headerList(Object.entries({ authorization: 'Bearer sk_test_secret_key', ...extra.request })),
    requestBody: '',
    status,
    responseHeaders: headerList(Object.entries({ ...json, ...extra.response })),
    responseBody: body,
  };
}

function delivery(at: number, webhookId: string, status: number, options: { secret?: string; tamper?: boolean; timestamp?: string } = {}): Exchange {
  const body = JSON.stringify({ event: 'session.resumed', session: { id: 'sess_paused_1' }, timestamp: '2026-11-28T01:00:00.000Z' });
  const headers = createWebhookHeaders({ secret: options.secret, now: () => new Date(at) })(webhookId, body);
  if (options.tamper) headers['webhook-signature'] = headers['webhook-signature']!.replace(/^v1,./, 'v1,A');
  if (options.timestamp) headers['webhook-timestamp'] = options.timestamp;
  return {
    kind: 'webhook',
    method: 'POST',
    target: '/hooks',
    startedAt: at,
    endedAt: at + 3,
    requestHeaders: headerList(Object.entries({ 'content-type': 'application/json', ...headers })),
    requestBody: body,
    status,
    responseHeaders: headerList(Object.entries(json)),
    responseBody: '{"received":true,"duplicate":false}',
  };
}

const drifted = (watcher: ReturnType<typeof createWatcher>) =>
  watcher
    .report()
    .filter((e) => e.grade === 'drift')
    .map((e) => e.rule);

describe('watch rules', () => {
  it('a resume, its replay, a not_paused answer, a 429 with Retry-After: no drift', () => {
    const w = createWatcher();
    const key = { 'idempotency-key': 'k-1' };
    w.observe(resume(T0, 200, RESUMED, { request: key }));
    w.observe(resume(T0 + 100, 200, RESUMED, { request: key, response: { 'idempotent-replayed': 'true' } }));
    w.observe(resume(T0 + 200, 409, NOT_PAUSED));
    w.observe(resume(T0 + 300, 429, JSON.stringify({ success: false, error: 'rate_limited', message: 'Too many.' }), { response: { 'retry-after': '30' } }));
    expect(drifted(w)).toEqual([]);
    const grades = Object.fromEntries(w.report().map((e) => [e.rule, e.grade]));
    expect(grades).toMatchObject({
      'idempotent-replay': 'pass',
      'not-paused': 'pass',
      'retry-after': 'pass',
      'error-shape': 'pass',
      'response-shape': 'pass',
      'webhook-signature': 'n/o',
    });
  });

  it('a repeated Idempotency-Key answered afresh: idempotent-replay only, with the exchange', () => {
    const w = createWatcher();
    w.observe(resume(T0, 200, RESUMED, { request: { 'idempotency-key': 'k-2' } }));
    const drifts = w.observe(resume(T0 + 100, 409, NOT_PAUSED, { request: { 'idempotency-key': 'k-2' } }));
    expect(drifts.map((d) => d.rule)).toEqual(['idempotent-replay']);
    expect(drifts[0]).toMatchObject({ method: 'POST', path: '/v1/sessions/sess_paused_1/resume', status: 409, time: new Date(T0 + 100).toISOString() });
    expect(drifts[0]?.fault).toMatch(/status 409, the recorded answer .* was 200; Idempotent-Replayed is missing/);
  });

  it('429 without Retry-After: retry-after only', () => {
    const w = createWatcher();
    w.observe(resume(T0, 429, JSON.stringify({ success: false, error: 'rate_limited', message: 'Too many.' })));
    expect(drifted(w)).toEqual(['retry-after']);
  });

  it('a not_paused answer as 200 {success:false}: not-paused only', () => {
    const w = createWatcher();
    w.observe(resume(T0, 200, JSON.stringify({ success: false, error: 'not_paused', message: 'Session is not paused (not_paused).' })));
    expect(drifted(w)).toEqual(['not-paused']);
    expect(w.report().find((e) => e.rule === 'not-paused')?.evidence).toContain('status 200, not 409');
  });

  it('a request without a key answered 200: request-shape only', () => {
    const w = createWatcher();
    const exchange = resume(T0, 200, RESUMED);
    w.observe({ ...exchange, requestHeaders: headerList([]) });
    expect(drifted(w)).toEqual(['request-shape']);
  });

  it('signed deliveries, a retry after 5 s with the same id: no drift', () => {
    const w = createWatcher({ secret: SECRET });
    w.observe(delivery(T0, 'msg_1', 503, { secret: SECRET }));
    w.observe(delivery(T0 + 5_000, 'msg_1', 200, { secret: SECRET }));
    expect(drifted(w)).toEqual([]);
    expect(
      w
        .report()
        .filter((e) => e.grade === 'pass')
        .map((e) => e.rule),
    ).toEqual(['webhook-shape', 'webhook-signature', 'webhook-id-stable', 'attempt-spacing', 'webhook-timestamp']);
  });

  it('a retry with a new webhook-id: webhook-id-stable only', () => {
    const w = createWatcher({ secret: SECRET });
    w.observe(delivery(T0, 'msg_1', 503, { secret: SECRET }));
    w.observe(delivery(T0 + 5_000, 'msg_2', 200, { secret: SECRET }));
    expect(drifted(w)).toEqual(['webhook-id-stable']);
  });

  it('a bad signature: webhook-signature only, and no signature printed', () => {
    const w = createWatcher({ secret: SECRET });
    const exchange = delivery(T0, 'msg_1', 200, { secret: SECRET, tamper: true });
    const drifts = w.observe(exchange);
    expect(drifts.map((d) => d.rule)).toEqual(['webhook-signature']);
    const signature = exchange.requestHeaders.get('webhook-signature')![0]!;
    expect(JSON.stringify(w.report())).not.toContain(signature.slice(3));
  });

  it('a retry sooner than the schedule: attempt-spacing only; a stale timestamp: webhook-timestamp only', () => {
    const w = createWatcher({ secret: SECRET });
    w.observe(delivery(T0, 'msg_1', 500, { secret: SECRET }));
    w.observe(delivery(T0 + 1_000, 'msg_1', 200, { secret: SECRET }));
    expect(drifted(w)).toEqual(['attempt-spacing']);
    const stale = createWatcher();
    stale.observe(delivery(T0, 'msg_9', 200, { timestamp: String(T0 / 1000 - 600) }));
    expect(drifted(stale)).toEqual(['webhook-timestamp']);
  });

  it('never prints the Authorization header or a token in a query', () => {
    const w = createWatcher();
    const exchange = resume(T0, 200, JSON.stringify({ success: false }));
    w.observe({ ...exchange, target: `${exchange.target}?access_token=sk_test_secret_key` });
    const report = JSON.stringify(w.report());
    expect(report).toContain('access_token=[redacted]');
    expect(report).not.toContain('sk_test_secret_key');
  });
});

it('docs/cli.md lists every watch rule, in report order', () => {
  const page = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
  const section = page.slice(page.indexOf('## watch'));
  const rows = [...section.matchAll(/^\| ([a-z-]+) \|/gm)].map((m) => m[1]).filter((cell) => cell !== 'rule');
  expect(rows).toEqual(WATCH_RULES.map((r) => r.id));
});
