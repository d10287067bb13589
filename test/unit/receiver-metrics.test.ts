/**
 * The receiver kit's `metrics` option: events counted by result, handler runs by outcome, two
 * receivers sharing one registry, and prom-client imported by the metrics subpath alone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMemoryEventStore, createProbeEvent, createWebhookReceiver, StoreUnavailableError, type ReceiverStore } from '../../client/webhooks/index.js';
import { createReceiverMetrics } from '../../client/webhooks/metrics/index.js';
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
      metrics: createReceiverMetrics(registry),
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

    const expected = { new: 1, duplicate: 1, invalid: 1, unauthorized: 1, unavailable: 1 };
    for (const [result, count] of Object.entries(expected)) {
      expect(await sample(registry, `session_resume_receiver_events_total{result="${result}"}`), result).toBe(count);
    }
    await waitFor(async () => (await sample(registry, 'session_resume_receiver_handler_runs_total{result="ok"}')) === 1, { what: 'the retry' });
    expect(await sample(registry, 'session_resume_receiver_handler_runs_total{result="failed"}')).toBe(1);
    await receiver.close();
  });

  it('two receivers share one registry; a Registry itself, or no registry, is refused at creation', async () => {
    const registry = new Registry();
    const receivers = [1, 2].map(() =>
      createWebhookReceiver({ store: createMemoryEventStore(), metrics: createReceiverMetrics(registry), onEvent: () => undefined }),
    );
    await Promise.all(receivers.map((r, i) => r.receive(event(`s${i}`))));
    expect(await sample(registry, 'session_resume_receiver_events_total{result="new"}')).toBe(2);
    await Promise.all(receivers.map((r) => r.close()));
    expect(() => createWebhookReceiver({ store: createMemoryEventStore(), metrics: registry as never, onEvent: () => undefined })).toThrow(
      /metrics must be createReceiverMetrics\(registry\)/,
    );
    expect(() => createReceiverMetrics({} as Registry)).toThrow(/registry must be a prom-client Registry/);
  });

  it('only the metrics subpath imports prom-client (a receiver without metrics never reaches it)', () => {
    const root = fileURLToPath(new URL('../../client', import.meta.url));
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.includes('node_modules') && !f.startsWith('dist'));
    const importers = files.filter((f) => /from\s+['"]prom-client['"]|import\(\s*['"]prom-client['"]/.test(readFileSync(join(root, f), 'utf8')));
    expect(importers).toEqual([join('webhooks', 'metrics', 'index.ts')]);
  });
});
