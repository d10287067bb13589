/** In-memory `SessionStore`: the embedded default, for one process (state is lost on exit). */
import { PAUSED, RUNNING, type ResumeOutcome, type Session, type SessionStore } from './session-store.js';

/** Options of the memory store. */
export interface MemorySessionStoreOptions {
  /** Clock for `updatedAt` (default `() => new Date()`). */
  now?: () => Date;
}

/** Creates an empty in-memory store; resume is atomic because it runs without an await between read and write. */
export function createMemorySessionStore(options: MemorySessionStoreOptions = {}): SessionStore {
  const now = options.now ?? (() => new Date());
  const sessions = new Map<string, Session>();
  return {
    async resume(id): Promise<ResumeOutcome> {
      const session = sessions.get(id);
      if (!session) return { kind: 'not_found' };
      if (session.status !== PAUSED) return { kind: 'not_paused', status: session.status };
      const resumed = { id, status: RUNNING, updatedAt: now().toISOString() };
      sessions.set(id, resumed);
      return { kind: 'resumed', session: { ...resumed } };
    },
    async get(id) {
      const session = sessions.get(id);
      return session && { ...session };
    },
    async seed(seeds) {
      let created = 0;
      for (const { id, status } of seeds) {
        if (sessions.has(id)) continue;
        sessions.set(id, { id, status, updatedAt: now().toISOString() });
        created += 1;
      }
      return { created };
    },
    async ping() {},
  };
}
