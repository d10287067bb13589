/**
 * The Durable Object store in workerd (miniflare), its object's clock moved by a subclass: a
 * receiver that records events and answers late for two hours, redelivered on the spec's schedule
 * (5 s, 5 min, 30 min, 2 h), handles each event once; a handled event leaves a compact record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookReceiver } from '../../client/webhooks/index.js';
import { createDurableObjectStore } from '../../client/webhooks/cloudflare/index.js';
import { runLateAnswerScenario, scenarioWindowSeconds } from '../helpers/late-answer.js';
import { startSkewedObject, type SkewedObject } from '../helpers/skewed-durable-object.js';

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
    await receiver.close();
  });
});
