/**
 * The receiver kit's `metrics` option: events counted by result, handler runs by outcome, two
 * receivers sharing one registry, and prom-client kept out of the package unless asked for
 * (type-only imports; loaded on first use).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMemoryEventStore, createProbeEvent, createWebhookReceiver, StoreUnavailableError, type ReceiverStore } from '../../client/webhooks/index.js';
import { createReceiverMetrics } from '../../client/webhooks/receiver-metrics.js';
import { createWebhookHeaders } from '@session-resume-api/runtime/delivery/webhook-headers';
import { waitFor } from '../helpers/wait-for.js';

const SECRET = `whsec_${Buffer.from('receiver-metrics-test-secret-0123456').toString('base64')}`;
const sign = createWebhookHeaders({ secret: SECRET });
const event = (id: string) => JSON.stringify({ event: 'session.resumed', session: { id }, timestamp: '2026-11-21T16:00:00.000Z' });

const sample = async (registry: Registry, series: string): Promise<number | undefined> => {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

/** The memory store, whose record fails while `down` is set. */
function flakyStore(): ReceiverStore & { down: boolean } {
  const store = createMemoryEventStore();
  const flaky = Object.assign(Object.create(store) as ReceiverStore, { down: false });
  flaky.record = (...args) => (flaky.down ? Promise.reject(new StoreUnavailableError('the store is down')) : store.record(...args));
  return flaky;
}

describe('receiver metrics', () => {
  it('counts new, duplicate, invalid, unauthorized and unavailable answers, not the probe; handler runs ok and failed', async () => {
    const registry = new Registry();
    const store = flakyStore();
    let failures = 1;
    const receiver = createWebhookReceiver({
      store,
      secret: SECRET,
      retryDelayMs: 0,
      metrics: registry,
      onEvent: () => {
        if (failures-- > 0) throw new Error('first run fails');
      },
    });
    const deliver = (body: string, id = 'msg_1') => receiver.receive(body, sign(id, body));
    expect((await deliver(event('a'))).status).toBe(200);
    expect((await deliver(event('a'))).status).toBe(200);
    expect((await deliver('{not json')).status).toBe(400);
    expect((await receiver.receive(event('b'), { ...sign('msg_2', event('b')), 'webhook-signature': 'v1,AAAA' })).status).toBe(401);
    expect((await deliver(JSON.stringify(createProbeEvent()), 'msg_probe')).status).toBe(200);
    store.down = true;
    expect((await deliver(event('c'), 'msg_3')).status).toBe(503);

    // prom-client loads on first use: the counts made meanwhile are added once it has.
    await waitFor(async () => (await sample(registry, 'session_resume_receiver_events_total{result="unavailable"}')) === 1, { what: 'prom-client' });
    const expected = { new: 1, duplicate: 1, invalid: 1, unauthorized: 1, unavailable: 1 };
    for (const [result, count] of Object.entries(expected)) {
      expect(await sample(registry, `session_resume_receiver_events_total{result="${result}"}`), result).toBe(count);
    }
    await waitFor(async () => (await sample(registry, 'session_resume_receiver_handler_runs_total{result="ok"}')) === 1, { what: 'the retry' });
    expect(await sample(registry, 'session_resume_receiver_handler_runs_total{result="failed"}')).toBe(1);
    await receiver.close();
  });

  it('two receivers share one registry; a value that is not a Registry is refused at creation', async () => {
    const registry = new Registry();
    const receivers = [1, 2].map(() => createWebhookReceiver({ store: createMemoryEventStore(), metrics: registry, onEvent: () => undefined }));
    await Promise.all(receivers.map((r, i) => r.receive(event(`s${i}`))));
    await waitFor(async () => (await sample(registry, 'session_resume_receiver_events_total{result="new"}')) === 2, { what: 'both counts' });
    await Promise.all(receivers.map((r) => r.close()));
    expect(() => createWebhookReceiver({ store: createMemoryEventStore(), metrics: {} as Registry, onEvent: () => undefined })).toThrow(
      /metrics must be a prom-client Registry/,
    );
  });

  it('says so once when prom-client cannot be loaded, and counting goes on without it', async () => {
    const errors: unknown[] = [];
    const metrics = createReceiverMetrics(new Registry(), (e) => errors.push(e), () => Promise.reject(new Error('Cannot find package prom-client')));
    metrics.handlerRan('ok');
    await waitFor(() => errors.length === 1, { what: 'the load error' });
    expect(() => metrics.handlerRan('failed')).not.toThrow();
  });

  it('client/ imports prom-client as a type only (the library is loaded on demand)', () => {
    const root = fileURLToPath(new URL('../../client', import.meta.url));
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.includes('node_modules') && !f.startsWith('dist'));
    const valueImports = files.filter((f) => /^import\s+(?!type\b)[^;]*from\s+['"]prom-client['"]/m.test(readFileSync(join(root, f), 'utf8')));
    expect(valueImports).toEqual([]);
  });
});
