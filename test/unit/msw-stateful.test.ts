/**
 * The stateful MSW handlers behave like the sandbox: resume flips a session, Prefer forces an
 * example without touching state, the feed carries the same delivery identity, the control
 * routes serve createSandboxClient, and a random sequence of operations gives the same answers
 * as a sandbox world.
 */
import fc from 'fast-check';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createStatefulResumeHandlers } from '../../client/msw/handlers.js';
import { createSandboxClient } from '../../client/sandbox/index.js';
import { createSandboxWorlds } from '../../server/sandbox/sandbox-worlds.js';
import { DEMO_SESSIONS } from '@session-resume-api/runtime/demo-sessions';
import { dedupeKey } from '@session-resume-api/runtime/event-identity';

const BASE = 'https://stateful.api.test';
const api = createStatefulResumeHandlers({ baseUrl: BASE });
const server = setupServer(...api.handlers);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => api.reset());
afterAll(() => server.close());

const resume = async (id: string, headers: Record<string, string> = { authorization: 'Bearer sandbox_msw' }) => {
  const res = await fetch(`${BASE}/v1/sessions/${encodeURIComponent(id)}/resume`, { method: 'POST', headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('createStatefulResumeHandlers', () => {
  it('resumes once, then answers not_paused; unknown ids 404; no token 401', async () => {
    expect(await resume('sess_paused_1')).toEqual({ status: 200, body: { success: true, message: 'Session resumed.' } });
    expect(await resume('sess_paused_1')).toMatchObject({ status: 409, body: { error: 'not_paused' } });
    expect((await resume('nope')).status).toBe(404);
    expect((await resume('sess_paused_2', {})).status).toBe(401);
    expect(api.sessions().find((s) => s.id === 'sess_paused_2')?.status).toBe('paused');
  });

  it('starts every test from the seed set again (reset in afterEach)', async () => {
    expect((await resume('sess_paused_1')).status).toBe(200);
  });

  it('forces examples with Prefer without changing state, and answers an unknown one 400', async () => {
    expect((await resume('sess_paused_1', { authorization: 'Bearer k', prefer: 'code=429' })).status).toBe(429);
    expect((await resume('sess_paused_1', { authorization: 'Bearer k', prefer: 'code=500, example=nope' })).status).toBe(400);
    expect(api.events()).toEqual([]);
    expect((await resume('sess_paused_1')).status).toBe(200);
  });

  it('records each resume with the same delivery identity as the sandbox', async () => {
    await resume('sess_paused_3');
    const [event] = api.events();
    expect(event?.sequence).toBe(1);
    expect(event?.payload).toMatchObject({ event: 'session.resumed', session: { id: 'sess_paused_3' } });
    expect(event?.dedupeKey).toBe(dedupeKey(event!.payload));
  });

  it('serves the control routes, so createSandboxClient set-up code runs unchanged against it', async () => {
    const sandbox = createSandboxClient({ baseUrl: BASE, apiKey: 'sandbox_msw' });
    await sandbox.setSession('checkout', 'paused');
    expect((await resume('checkout')).status).toBe(200);
    expect((await sandbox.events()).map((e) => e.payload.session.id)).toEqual(['checkout']);
    expect((await sandbox.sessions()).find((s) => s.id === 'checkout')?.status).toBe('running');
    expect((await sandbox.reset()).map((s) => s.id)).toEqual(DEMO_SESSIONS.map((s) => s.id));
    await expect(sandbox.setSession('x', '')).rejects.toMatchObject({ status: 400 });
    expect(await sandbox.setDeliveryProfile({ duplicateRate: 1 })).toMatchObject({ duplicateRate: 1, concurrentCopies: 1 });
    expect((await sandbox.deliveryProfile()).duplicateRate).toBe(1);
    await expect(sandbox.setDeliveryProfile({ duplicateRate: 2 })).rejects.toMatchObject({ status: 400 });
    await sandbox.reset();
    expect((await sandbox.deliveryProfile()).duplicateRate).toBe(0);
  });
});

describe('same state model as a sandbox world', () => {
  const ids = ['sess_paused_1', 'sess_running_1', 'new_1', 'unknown'];
  const op = fc.oneof(
    fc.record({ kind: fc.constant('resume' as const), id: fc.constantFrom(...ids) }),
    fc.record({ kind: fc.constant('set' as const), id: fc.constantFrom(...ids), status: fc.constantFrom('paused', 'running', 'cancelled') }),
    fc.record({ kind: fc.constant('reset' as const) }),
  );
  const statusOf = { resumed: 200, not_found: 404, not_paused: 409 } as const;

  it('answers every sequence of resumes, sets and resets with the same statuses and ends in the same sessions', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 12 }), async (ops) => {
        api.reset();
        const world = createSandboxWorlds({ seeds: DEMO_SESSIONS }).world('w');
        for (const o of ops) {
          if (o.kind === 'reset') {
            api.reset();
            world.reset();
          } else if (o.kind === 'set') {
            api.setSession(o.id, o.status);
            world.set(o.id, o.status);
          } else {
            // As the app does: a resumed session's event goes to the world's feed.
            const outcome = await world.resume(o.id);
            if (outcome.kind === 'resumed') world.record({ id: 'msg_t', payload: { event: 'session.resumed', session: { id: o.id }, timestamp: 't' } });
            expect((await resume(o.id)).status).toBe(statusOf[outcome.kind as keyof typeof statusOf]);
          }
        }
        const strip = (list: { id: string; status: string }[]) => list.map(({ id, status }) => ({ id, status }));
        expect(strip(api.sessions())).toEqual(strip(world.list({ limit: 1000 }).sessions));
        expect(api.events().map((e) => e.payload.session.id)).toEqual(world.events().map((e) => e.payload.session.id));
      }),
      { numRuns: 60 },
    );
  });
});
