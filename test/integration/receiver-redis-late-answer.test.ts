/**
 * The Redis store on its own redis-server, with its clock moved by `clockSkewMs`: a receiver that
 * records events and answers late for two hours, redelivered on the spec's schedule (5 s, 5 min,
 * 30 min, 2 h), handles each event once; what stays per handled event is its compact dedupe record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookReceiver } from '../../client/webhooks/index.js';
import { createRedisEventStore } from '../../client/webhooks/redis/index.js';
import { runLateAnswerScenario, scenarioWindowSeconds } from '../helpers/late-answer.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server?.stop());

const bodyOf = (i: number) => JSON.stringify({ event: 'session.resumed', session: { id: `sess_late_${i}` }, timestamp: `2026-11-28T08:00:0${i}.000Z` });
const headersOf = (i: number) => (i % 2 === 1 ? { 'webhook-id': `msg_late_${i}` } : undefined);

describe('Redis store: a receiver that answers late for two hours', () => {
  it('handles every event once when the sender redelivers at 5 s, 5 min, 30 min and 2 h', { timeout: 60_000 }, async () => {
    let skew = 0;
    const runs = new Map<string, number>();
    const receiver = createWebhookReceiver({
      store: createRedisEventStore({ url: server.url, prefix: 'late', clockSkewMs: () => skew }),
      dedupeWindowSeconds: scenarioWindowSeconds(),
      onEvent: (event) => void runs.set(event.session!.id, (runs.get(event.session!.id) ?? 0) + 1),
    });
    const started = Date.now();
    const handled = await runLateAnswerScenario(
      {
        deliver: async (i) => (await receiver.receive(bodyOf(i), headersOf(i))).status,
        // The clock moves by the schedule; the seconds the test itself takes count as well.
        moveTo: (ms) => void (skew = Math.max(0, ms - (Date.now() - started))),
        handled: (i) => runs.get(`sess_late_${i}`) ?? 0,
      },
      4,
    );
    expect(handled).toEqual([1, 1, 1, 1]);
    await receiver.close();
  });
});
