/**
 * The receiver's memory store holds at most `maxEvents` events (queued, in the dedupe window
 * or dead-lettered): past it a new event is answered 503, so the sender retries, never lost;
 * room comes back as records leave the window.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryEventStore, createWebhookReceiver, OptionsError } from '../../client/webhooks/index.js';
import { waitFor } from '../helpers/wait-for.js';

const event = (n: number) => JSON.stringify({ event: 'session.resumed', session: { id: `sess_${n}` }, timestamp: 't' });

describe('memory event store bound', () => {
  it('answers 503 past maxEvents, and takes events again once records leave the window', async () => {
    let clock = 1_000_000;
    const handled: string[] = [];
    const receiver = createWebhookReceiver({
      store: createMemoryEventStore({ maxEvents: 2, now: () => clock }),
      dedupeWindowSeconds: 60,
      onEvent: (e) => void handled.push(e.session?.id ?? ''),
    });
    expect((await receiver.receive(event(1))).status).toBe(200);
    expect((await receiver.receive(event(2))).status).toBe(200);
    const full = await receiver.receive(event(3));
    expect(full).toMatchObject({ status: 503, body: { message: expect.stringContaining('limit of 2 events') } });
    // A duplicate is still recognised while full.
    expect(await receiver.receive(event(1))).toMatchObject({ status: 200, body: { duplicate: true } });
    await waitFor(() => handled.length === 2);
    clock += 61_000;
    expect((await receiver.receive(event(3))).status).toBe(200);
    await waitFor(() => handled.length === 3);
    await receiver.close();
  });

  it('refuses a maxEvents that is not a positive integer', () => {
    expect(() => createMemoryEventStore({ maxEvents: 0 })).toThrow(OptionsError);
  });
});
