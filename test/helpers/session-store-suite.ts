/** The one behaviour suite every `SessionStore` must pass; run by the memory and Redis store tests. */
import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../server/sessions/session-store.js';

/** Registers the suite; `makeStore` returns a fresh, empty store for each test. */
export function sessionStoreSuite(name: string, makeStore: (now: () => Date) => Promise<SessionStore>): void {
  const clock = () => {
    let t = Date.parse('2026-11-21T16:00:00.000Z');
    return () => new Date((t += 1000));
  };

  describe(`SessionStore: ${name}`, () => {
    it('resumes a paused session: it becomes running with a new updatedAt', async () => {
      const store = await makeStore(clock());
      await store.seed([{ id: 's1', status: 'paused' }]);
      const before = await store.get('s1');
      const outcome = await store.resume('s1');
      expect(outcome).toMatchObject({ kind: 'resumed', session: { id: 's1', status: 'running' } });
      const after = await store.get('s1');
      expect(after?.status).toBe('running');
      expect(Date.parse(after!.updatedAt)).toBeGreaterThan(Date.parse(before!.updatedAt));
    });

    it('answers not_found for an unknown id', async () => {
      const store = await makeStore(clock());
      expect(await store.resume('nope')).toEqual({ kind: 'not_found' });
      expect(await store.get('nope')).toBeUndefined();
    });

    it('answers not_paused with the current status for running and other statuses', async () => {
      const store = await makeStore(clock());
      await store.seed([
        { id: 'r', status: 'running' },
        { id: 'c', status: 'cancelled' },
      ]);
      expect(await store.resume('r')).toEqual({ kind: 'not_paused', status: 'running' });
      expect(await store.resume('c')).toEqual({ kind: 'not_paused', status: 'cancelled' });
      expect((await store.get('c'))?.status).toBe('cancelled');
    });

    it('a second resume of the same session is not_paused', async () => {
      const store = await makeStore(clock());
      await store.seed([{ id: 's1', status: 'paused' }]);
      await store.resume('s1');
      expect(await store.resume('s1')).toEqual({ kind: 'not_paused', status: 'running' });
    });

    it('of 200 concurrent resumes of one paused session exactly one succeeds', async () => {
      const store = await makeStore(clock());
      await store.seed([{ id: 'hot', status: 'paused' }]);
      const outcomes = await Promise.all(Array.from({ length: 200 }, () => store.resume('hot')));
      expect(outcomes.filter((o) => o.kind === 'resumed')).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === 'not_paused')).toHaveLength(199);
    });

    it('seeding never overwrites an existing session', async () => {
      const store = await makeStore(clock());
      expect(await store.seed([{ id: 's1', status: 'paused' }])).toEqual({ created: 1 });
      await store.resume('s1');
      expect(
        await store.seed([
          { id: 's1', status: 'paused' },
          { id: 's2', status: 'paused' },
        ]),
      ).toEqual({ created: 1 });
      expect((await store.get('s1'))?.status).toBe('running');
      expect((await store.get('s2'))?.status).toBe('paused');
    });

    it('keeps ids exactly, including characters that are special in paths or keys', async () => {
      const store = await makeStore(clock());
      const id = 'a/b:c*?ü é';
      await store.seed([{ id, status: 'paused' }]);
      expect(await store.resume('a/b:c*?ü')).toEqual({ kind: 'not_found' });
      expect(await store.resume(id)).toMatchObject({ kind: 'resumed', session: { id } });
    });

    it('answers ping when healthy', async () => {
      const store = await makeStore(clock());
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
