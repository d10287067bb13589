/**
 * The server's metrics without sockets: the resume outcome of each status, the observer's
 * counters and histogram, and the delivery gauge (session_resume_outbox_events) read from a small fake inspector at each scrape.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createServerMetrics, isResumeRequest, resumeResultLabel } from '../../../server/metrics/index.js';
import type { DeliveryStats } from '../../../server/webhooks/delivery-types.js';

const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('resume outcomes', () => {
  it('maps each answer of the resume operation to its outcome', () => {
    const statuses = {
      200: 'resumed',
      409: 'not_paused',
      404: 'not_found',
      401: 'unauthorized',
      429: 'rate_limited',
      503: 'unavailable',
      500: 'unavailable',
      400: 'invalid',
      413: 'invalid',
      415: 'invalid',
      405: 'invalid',
    };
    for (const [status, outcome] of Object.entries(statuses)) expect(resumeResultLabel(Number(status)), status).toBe(outcome);
  });

  it('counts POST /v1/sessions/{id}/resume only', () => {
    expect(isResumeRequest('POST', '/v1/sessions/s1/resume')).toBe(true);
    expect(isResumeRequest('POST', '/v1/sessions/s%2F1/resume?x=1')).toBe(true);
    expect(isResumeRequest('GET', '/v1/sessions/s1/resume')).toBe(false);
    expect(isResumeRequest('POST', '/v1/sessions/s1/resume/x')).toBe(false);
    expect(isResumeRequest('POST', '/healthz')).toBe(false);
  });

  it('the middleware counts on finish, from the status sent', async () => {
    const metrics = createServerMetrics({ defaultMetrics: false });
    const answer = (method: string, url: string, status: number) => {
      const res = Object.assign(new EventEmitter(), { statusCode: status }) as unknown as ServerResponse;
      let nexted = false;
      metrics.countRequests({ method, url } as IncomingMessage, res, () => (nexted = true));
      expect(nexted).toBe(true);
      res.emit('finish');
    };
    answer('POST', '/v1/sessions/a/resume', 200);
    answer('POST', '/v1/sessions/b/resume', 409);
    answer('POST', '/v1/sessions/b/resume', 409);
    answer('GET', '/healthz', 200);
    const text = await metrics.registry.metrics();
    expect(sample(text, 'session_resume_requests_total{outcome="resumed"}')).toBe(1);
    expect(sample(text, 'session_resume_requests_total{outcome="not_paused"}')).toBe(2);
    // Every outcome is there from the start, at 0.
    expect(sample(text, 'session_resume_requests_total{outcome="rate_limited"}')).toBe(0);
  });
});

describe('delivery metrics', () => {
  it('counts attempts by result and observes delivery seconds', async () => {
    const metrics = createServerMetrics({ defaultMetrics: false });
    const at = new Date().toISOString();
    metrics.observer.attempt?.({ at, result: 'http_status', status: 500, durationMs: 3 });
    metrics.observer.attempt?.({ at, result: 'timeout', durationMs: 5000 });
    metrics.observer.attempt?.({ at, result: 'delivered', status: 200, durationMs: 4 });
    metrics.observer.delivered?.(7.5);
    const text = await metrics.registry.metrics();
    expect(sample(text, 'session_resume_webhook_attempts_total{result="http_status"}')).toBe(1);
    expect(sample(text, 'session_resume_webhook_attempts_total{result="delivered"}')).toBe(1);
    expect(sample(text, 'session_resume_webhook_attempts_total{result="network"}')).toBe(0);
    expect(sample(text, 'session_resume_webhook_delivery_seconds_count')).toBe(1);
    expect(sample(text, 'session_resume_webhook_delivery_seconds_sum')).toBe(7.5);
    expect(sample(text, 'session_resume_webhook_delivery_seconds_bucket{le="5"}')).toBe(0);
    expect(sample(text, 'session_resume_webhook_delivery_seconds_bucket{le="10"}')).toBe(1);
  });

  it('reads the delivery gauge from the inspector at each scrape; no sample while it fails or before one is given', async () => {
    const metrics = createServerMetrics({ defaultMetrics: false });
    expect(await metrics.registry.metrics()).not.toMatch(/^session_resume_outbox_events\{/m);
    let stats: DeliveryStats | Error = { pending: 3, delivering: 1, delivered: 9, dead: 2 };
    metrics.watchDelivery({ stats: async () => (stats instanceof Error ? Promise.reject(stats) : stats) });
    let text = await metrics.registry.metrics();
    expect(sample(text, 'session_resume_outbox_events{state="pending"}')).toBe(4);
    expect(sample(text, 'session_resume_outbox_events{state="dead"}')).toBe(2);
    stats = new Error('Redis is down');
    text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE session_resume_outbox_events gauge');
    expect(sample(text, 'session_resume_outbox_events{state="pending"}')).toBeUndefined();
    stats = { pending: 0, delivering: 0, delivered: 10, dead: 1 };
    expect(sample(await metrics.registry.metrics(), 'session_resume_outbox_events{state="pending"}')).toBe(0);
  });

  it('registers in a given registry, with the default process metrics unless turned off', async () => {
    const registry = new Registry();
    createServerMetrics({ registry });
    const text = await registry.metrics();
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('# TYPE session_resume_webhook_delivery_seconds histogram');
    expect(await createServerMetrics({ defaultMetrics: false }).registry.metrics()).not.toContain('process_cpu_user_seconds_total');
  });
});
