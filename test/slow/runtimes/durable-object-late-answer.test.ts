/**
 * The Durable Object store in workerd (miniflare), its object's clock moved by a subclass: a
 * receiver that records events and answers late for two hours, redelivered on the spec's schedule
 * (5 s, 5 min, 30 min, 2 h), handles each event once; a handled event leaves a compact record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookReceiver } from '../../../client/webhooks/index.js';
import { createDurableObjectStore } from '../../../client/webhooks/cloudflare/index.js';
import { runLateAnswerScenario, scenarioWindowSeconds } from '../../helpers/late-answer.js';
import { startSkewedObject, type SkewedObject } from './skewed-durable-object.js';

let object: SkewedObject;
beforeAll(async () => {
  object = await startSkewedObject();
}, 120_000);
afterAll(() => object?.dispose());

const bodyOf = (i: number) => JSON.stringify({ event: 'session.resumed', session: { id: `sess_late_${i}` }, timestamp: `2026-11-28T08:00:0${i}.000Z` });
const headersOf = (i: number) => (i % 2 === 1 ? { 'webhook-id': `msg_late_${i}` } : undefined);

describe('Durable Object store: a receiver that answers late for two hours', () => {
  it('handles every event once when the sender redelivers at 5 s, 5 min, 30 min and 2 h', { timeout: 60_000 }, async () => {
    const runs = new Map<string, number>();
    const receiver = createWebhookReceiver({
      store: createDurableObjectStore({ namespace: object.namespace }),
      dedupeWindowSeconds: scenarioWindowSeconds(),
      onEvent: (event) => void runs.set(event.session!.id, (runs.get(event.session!.id) ?? 0) + 1),
    });
    const started = Date.now();
    const handled = await runLateAnswerScenario(
      {
        deliver: async (i) => (await receiver.receive(bodyOf(i), headersOf(i))).status,
        moveTo: (ms) => object.setSkew(Math.max(0, ms - (Date.now() - started))),
        handled: (i) => runs.get(`sess_late_${i}`) ?? 0,
      },
      4,
    );
    expect(handled).toEqual([1, 1, 1, 1]);
    // What stays of the handled events: their compact records, and the counts.
    const kinds = new Set((await object.keys()).map((key) => key.split(':')[0]));
    expect([...kinds].sort()).toEqual(['k', 'n', 'r', 'w', 'y']);
    await receiver.close();
  });

  it('drops compact records and order marks a window after they were written', { timeout: 60_000 }, async () => {
    await object.setSkew(0);
    const store = createDurableObjectStore({ namespace: object.namespace });
    const receiver = createWebhookReceiver({ store, order: 'per-session', dedupeWindowSeconds: 3600, onEvent: () => {} });
    const event = (i: number) => JSON.stringify({ event: 'session.resumed', session: { id: `sess_window_${i}` }, timestamp: `2026-11-28T09:00:0${i}.000Z` });
    for (const i of [0, 1]) expect((await receiver.receive(event(i))).status).toBe(200);
    await receiver.close();
    expect((await object.keys()).filter((key) => key.startsWith('s:sess_window_'))).toHaveLength(2);
    // A recording a day past the longest window used here sweeps what expired (the first
    // scenario's records, kept for the spec's window, included).
    await object.setSkew((scenarioWindowSeconds() + 86_400) * 1000);
    const later = createWebhookReceiver({ store: createDurableObjectStore({ namespace: object.namespace }), onEvent: () => {} });
    expect((await later.receive(event(9))).status).toBe(200);
    await later.close();
    const keys = await object.keys();
    expect(keys.filter((key) => key.startsWith('s:') || key.startsWith('z:'))).toEqual([]);
    // Only the last event's compact record is left: every earlier one (and its webhook-id's) expired.
    const count = (prefix: string) => keys.filter((key) => key.startsWith(prefix)).length;
    expect([count('k:'), count('w:'), count('y:'), count('e:'), count('x:'), count('q:')]).toEqual([1, 0, 1, 0, 0, 0]);
  });
});
