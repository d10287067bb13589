/**
 * Next.js's Edge runtime defines `setImmediate` as a stub that throws when called (its way of
 * naming a Node API it lacks). The memory store schedules with it where it exists: there, a
 * first delivery is still answered 200 and handled once, and its duplicate is not handled again
 * (test/slow/runtimes/nextjs.test.ts runs the same in Next.js itself).
 */
import { expect, it, vi } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';

type Kit = typeof import('../../client/webhooks/index.js');

/** The receiver kit loaded afresh while `setImmediate` is such a stub (its modules read the global when loaded). */
async function kitWithThrowingSetImmediate(): Promise<Kit> {
  const real = globalThis.setImmediate;
  vi.resetModules();
  globalThis.setImmediate = (() => {
    throw new Error('A Node.js API is used (setImmediate) which is not supported in the Edge Runtime.');
  }) as unknown as typeof setImmediate;
  try {
    return await import('../../client/webhooks/index.js');
  } finally {
    globalThis.setImmediate = real;
  }
}

it('with a setImmediate that throws, the memory store answers 200, handles the event once and its duplicate not again', async () => {
  const { createMemoryEventStore, createWebhookReceiver } = await kitWithThrowingSetImmediate();
  const handled: string[] = [];
  const receiver = createWebhookReceiver({ store: createMemoryEventStore(), onEvent: (e) => void handled.push(e.session?.id ?? '') });
  const body = JSON.stringify({ event: 'session.resumed', session: { id: 'sess_stub' }, timestamp: 't' });
  expect(await receiver.receive(body)).toMatchObject({ status: 200, body: { duplicate: false } });
  await waitFor(() => handled.length === 1);
  expect(await receiver.receive(body)).toMatchObject({ status: 200, body: { duplicate: true } });
  const second = JSON.stringify({ event: 'session.resumed', session: { id: 'sess_stub_2' }, timestamp: 't' });
  expect((await receiver.receive(second)).status).toBe(200);
  await waitFor(() => handled.length === 2);
  expect(handled).toEqual(['sess_stub', 'sess_stub_2']);
  await receiver.close();
});
