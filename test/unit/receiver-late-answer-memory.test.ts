/**
 * The memory store on an injected clock: a receiver that records events and answers late for two
 * hours, redelivered on the spec's schedule, handles each event once; a record outlives its window
 * while its event is still being processed; handled events keep only a compact record, bounded by
 * `maxRecords`.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryEventStore, createWebhookReceiver } from '../../client/webhooks/index.js';
import { attemptTimes, runLateAnswerScenario, scenarioWindowSeconds } from '../helpers/late-answer.js';
import { waitFor } from '../helpers/wait-for.js';

const start = Date.parse('2026-11-28T08:00:00.000Z');
const bodyOf = (i: number) => JSON.stringify({ event: 'session.resumed', session: { id: `sess_late_${i}` }, timestamp: `2026-11-28T08:00:0${i}.000Z` });
const headersOf = (i: number) => (i % 2 === 1 ? { 'webhook-id': `msg_late_${i}` } : undefined);

describe('memory store: a receiver that answers late for two hours', () => {
  it('handles every event once when the sender redelivers at 5 s, 5 min, 30 min and 2 h', async () => {
    let clock = start;
    const runs = new Map<string, number>();
    const receiver = createWebhookReceiver({
      store: createMemoryEventStore({ now: () => clock }),
      dedupeWindowSeconds: scenarioWindowSeconds(),
      onEvent: (event) => void runs.set(event.session!.id, (runs.get(event.session!.id) ?? 0) + 1),
    });
    expect(attemptTimes()).toEqual([0, 5_000, 305_000, 2_105_000, 9_305_000]);
    const handled = await runLateAnswerScenario(
      {
        deliver: async (i) => (await receiver.receive(bodyOf(i), headersOf(i))).status,
        moveTo: (ms) => void (clock = start + ms),
        handled: (i) => runs.get(`sess_late_${i}`) ?? 0,
      },
      4,
    );
    expect(handled).toEqual([1, 1, 1, 1]);
    await receiver.close();
  });

  it('keeps a record past its window while its event is still being processed', async () => {
    let clock = start;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const receiver = createWebhookReceiver({
      store: createMemoryEventStore({ now: () => clock }),
      dedupeWindowSeconds: 3600,
      onEvent: async () => {
        runs++;
        await gate;
      },
    });
    expect((await receiver.receive(bodyOf(0))).body).toMatchObject({ duplicate: false });
    await waitFor(() => runs === 1);
    clock += 3 * 3600_000;
    expect((await receiver.receive(bodyOf(0))).body).toMatchObject({ duplicate: true });
    release();
    await receiver.close();
    expect(runs).toBe(1);
  });

  it('answers 503 past maxRecords handled events within the window, and takes events again once they leave it', async () => {
    let clock = start;
    const handled: string[] = [];
    const receiver = createWebhookReceiver({
      store: createMemoryEventStore({ now: () => clock, maxRecords: 2 }),
      dedupeWindowSeconds: 7200,
      onEvent: (event) => void handled.push(event.session!.id),
      logger: false,
    });
    for (const i of [0, 1]) expect((await receiver.receive(bodyOf(i), headersOf(i))).status).toBe(200);
    await waitFor(() => handled.length === 2);
    const full = await receiver.receive(bodyOf(2));
    expect(full).toMatchObject({ status: 503, body: { message: expect.stringContaining('limit of 2 records of handled events') } });
    // Both identities of a compact record still answer duplicate while it is full.
    expect(await receiver.receive(bodyOf(1))).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(await receiver.receive('{"event":"other","session":{"id":"x"}}', { 'webhook-id': 'msg_late_1' })).toMatchObject({
      status: 200,
      body: { duplicate: true },
    });
    clock += 7200_000;
    expect((await receiver.receive(bodyOf(2))).status).toBe(200);
    await waitFor(() => handled.length === 3);
    expect(handled).toEqual(['sess_late_0', 'sess_late_1', 'sess_late_2']);
    await receiver.close();
  });
});
