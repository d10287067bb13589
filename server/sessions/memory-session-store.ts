/** In-memory `SessionStore`: the embedded default, for one process (state is lost on exit). */
import { randomUUID } from 'node:crypto';
import {
  IDEMPOTENCY_TTL_SECONDS,
  PAUSED,
  resumedEvent,
  RUNNING,
  type RecordedAnswer,
  type ResumeTransition,
  type Session,
  type SessionStore,
} from './session-store.js';

/** Options of the memory store. */
export interface MemorySessionStoreOptions {
  /** Clock for `updatedAt` and key expiry (default `() => new Date()`). */
  now?: () => Date;
  /**
   * The map the store keeps its sessions in (default: a new one). The sandbox passes its own to
   * list and set a world's sessions beside the store's resume.
   */
  sessions?: Map<string, Session>;
}

interface KeyRecord {
  sessionId: string;
  answer: RecordedAnswer;
  expiresAt: number;
}

/**
 * Creates an empty in-memory store. Resume, its event and its Idempotency-Key record form one
 * critical section: no await between the read and the writes.
 *
 * @example
 * const store = createMemorySessionStore();
 * await store.seed([{ id: 'sess_1', status: 'paused' }]);
 */
export function createMemorySessionStore(options: MemorySessionStoreOptions = {}): SessionStore {
  const now = options.now ?? (() => new Date());
  const sessions = options.sessions ?? new Map<string, Session>();
  const keys = new Map<string, KeyRecord>();
  const decide = (id: string, at: Date): ResumeTransition => {
    const session = sessions.get(id);
    if (!session) return { kind: 'not_found' };
    if (session.status !== PAUSED) return { kind: 'not_paused', status: session.status };
    // Formatted only here: most resumes (409, 404) never need the timestamp.
    const resumed = { id, status: RUNNING, updatedAt: at.toISOString() };
    sessions.set(id, resumed);
    return { kind: 'resumed', session: { ...resumed }, event: resumedEvent(`msg_${randomUUID()}`, id, resumed.updatedAt) };
  };
  return {
    async resume(id, resumeOptions = {}): Promise<ResumeTransition> {
      const at = now();
      const idem = resumeOptions.idempotency;
      if (!idem) return decide(id, at);
      const mapKey = JSON.stringify([idem.scope, idem.key]);
      const seen = keys.get(mapKey);
      if (seen && seen.expiresAt > at.getTime()) {
        if (seen.sessionId !== id) return { kind: 'key_reused' };
        return { kind: 'replayed', answer: structuredClone(seen.answer) };
      }
      const transition = decide(id, at);
      if (transition.kind === 'resumed' || transition.kind === 'not_found' || transition.kind === 'not_paused') {
        const answer = structuredClone(idem.answers[transition.kind]);
        keys.set(mapKey, { sessionId: id, answer, expiresAt: at.getTime() + IDEMPOTENCY_TTL_SECONDS * 1000 });
        // Expired keys go now and then, so a long-running process does not keep every key forever.
        if (keys.size % 1024 === 0) for (const [k, r] of keys) if (r.expiresAt <= at.getTime()) keys.delete(k);
      }
      return transition;
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
