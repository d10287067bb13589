/**
 * The metrics of a real server process on the shared Redis (own key prefix): its own listener
 * at METRICS_PORT in the Prometheus text format, resume outcomes counted from real answers,
 * and the delivery engine's attempts and delivery time from a real receiver that fails once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { deletePrefix, uniquePrefix } from '../../helpers/redis-keys.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import { waitFor } from '../../helpers/wait-for.js';

const prefix = uniquePrefix('metrics');
let receiver: Server;
let hits = 0;
let dir: string;
let server: ServerProcess | undefined;

beforeAll(async () => {
  // Fails the first attempt, accepts the next: one http_status and one delivered attempt.
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(hits++ === 0 ? 500 : 200, { 'content-type': 'application/json' }).end('{"received":true}'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  dir = mkdtempSync(join(tmpdir(), 'metrics-'));
  writeFileSync(join(dir, 'sessions.json'), JSON.stringify([{ id: 'm1', status: 'paused' }]));
});

afterAll(async () => {
  await server?.stop('SIGKILL');
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await deletePrefix(inject('redisUrl'), prefix);
  rmSync(dir, { recursive: true, force: true });
});

const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

it('serves resume outcomes, webhook attempts and delivery time on METRICS_PORT, apart from the API', async () => {
  server = await startServerProcess({
    API_KEYS: 'k,k2',
    LOG_LEVEL: 'info',
    REDIS_URL: inject('redisUrl'),
    REDIS_KEY_PREFIX: `${prefix}:`,
    SESSIONS_FILE: join(dir, 'sessions.json'),
    WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
    WEBHOOK_INSECURE_LOCALHOST: '1',
    WEBHOOK_RETRY_SCHEDULE: '0,100ms,1s',
    RATE_LIMIT: '3',
    METRICS_PORT: '0',
  });
  await waitFor(() => /"msg":"metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)"/.test(server!.output()), { what: 'the metrics line' });
  const metricsUrl = /"msg":"metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)"/.exec(server.output())![1]!;
  expect(metricsUrl).not.toContain(new URL(server.url).port);

  const resume = (id: string, key = 'k', init: RequestInit = {}) =>
    fetch(`${server!.url}/v1/sessions/${id}/resume`, { method: 'POST', ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
  expect((await resume('m1')).status).toBe(200);
  expect((await resume('m1')).status).toBe(409);
  expect((await resume('nope')).status).toBe(404);
  expect((await resume('m1', 'wrong')).status).toBe(401);
  expect((await resume('m1', 'k2', { headers: { 'content-type': 'application/json' }, body: '{' })).status).toBe(400);
  for (let i = 0; i < 2; i++) await resume('nope', 'k2');
  expect((await resume('nope', 'k2')).status).toBe(429);
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

  let text = '';
  await waitFor(
    async () => {
      text = await (await fetch(metricsUrl)).text();
      return sample(text, 'session_resume_webhook_delivery_seconds_count') === 1;
    },
    { what: 'the delivery in the metrics' },
  );
  const response = await fetch(metricsUrl);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  const outcomes = { resumed: 1, not_paused: 1, not_found: 3, unauthorized: 1, invalid: 1, rate_limited: 1, unavailable: 0 };
  for (const [outcome, count] of Object.entries(outcomes)) {
    expect(sample(text, `session_resume_requests_total{outcome="${outcome}"}`), outcome).toBe(count);
  }
  expect(sample(text, 'session_resume_webhook_attempts_total{result="http_status"}')).toBe(1);
  expect(sample(text, 'session_resume_webhook_attempts_total{result="delivered"}')).toBe(1);
  expect(sample(text, 'session_resume_webhook_delivery_seconds_bucket{le="+Inf"}')).toBe(1);
  expect(text).toContain('process_resident_memory_bytes');
  expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
  // The API's port has no metrics: 404 in the spec's Error body, without a key (x-decisions: unknown-paths).
  const onApi = await fetch(`${server.url}/metrics`);
  expect(onApi.status).toBe(404);
  expect(await onApi.json()).toEqual({ success: false, error: 'not_found', message: 'No operation at this path.' });
}, 60_000);
