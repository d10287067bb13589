import { describe, expect, it } from 'vitest';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { createMemorySessionStore } from '../../../server/sessions/memory-session-store.js';
import { sessionStoreSuite } from '../../helpers/session-store-suite.js';

sessionStoreSuite('memory', async (now) => createMemorySessionStore({ now }));

describe('memory store: bounded Idempotency-Keys', () => {
  const answers = {
    resumed: { status: 200, body: { success: true, message: 'Session resumed.' } },
    not_found: { status: 404, body: { success: false } },
    not_paused: { status: 409, body: { success: false } },
  };
  const idem = (key: string) => ({ idempotency: { scope: 'k', key, answers } });

  it('keeps at most idempotencyMaxKeys, dropping the least recently used', async () => {
    const store = createMemorySessionStore({ idempotencyMaxKeys: 2 });
    await store.seed(['a', 'b', 'c'].map((id) => ({ id, status: 'paused' })));
    expect((await store.resume('a', idem('ka'))).kind).toBe('resumed');
    expect((await store.resume('b', idem('kb'))).kind).toBe('resumed');
    // Using ka makes kb the least recently used.
    expect((await store.resume('a', idem('ka'))).kind).toBe('replayed');
    expect((await store.resume('c', idem('kc'))).kind).toBe('resumed');
    expect((await store.resume('a', idem('ka'))).kind).toBe('replayed');
    // kb was dropped: its repeat sees the real state.
    expect(await store.resume('b', idem('kb'))).toEqual({ kind: 'not_paused', status: 'running' });
  });

  it('forgets a key after idempotencyTtlSeconds, and never records a 404', async () => {
    let t = Date.parse('2026-11-21T16:00:00.000Z');
    const store = createMemorySessionStore({ now: () => new Date(t), idempotencyTtlSeconds: 60 });
    await store.seed([{ id: 'a', status: 'paused' }]);
    expect((await store.resume('a', idem('k'))).kind).toBe('resumed');
    t += 59_000;
    expect((await store.resume('a', idem('k'))).kind).toBe('replayed');
    t += 2_000;
    expect((await store.resume('a', idem('k'))).kind).toBe('not_paused');
    expect((await store.resume('gone', idem('k404'))).kind).toBe('not_found');
    await store.seed([{ id: 'gone', status: 'paused' }]);
    expect((await store.resume('gone', idem('k404'))).kind).toBe('resumed');
  });

  it.each([{ idempotencyMaxKeys: 0 }, { idempotencyTtlSeconds: 1.5 }])('refuses %o', (options) => {
    expect(() => createMemorySessionStore(options)).toThrow(OptionsError);
  });
});
