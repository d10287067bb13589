/** In-memory `SessionStore`: the embedded default, for one process (state is lost on exit). */
import { randomUUID } from 'node:crypto';
import { checkInteger } from '@session-resume-api/runtime/options-error';
import {
  DEFAULT_IDEMPOTENCY_MAX_KEYS,
  IDEMPOTENCY_TTL_SECONDS,
  PAUSED,
  RUNNING,
  type RecordedAnswer,
  type ResumeTransition,
  type StoreResumeOptions,
  type Session,
  type SessionStore,
} from './session-store.js';
import { resumedEvent } from '../core/webhook-message.js';
import { createIdempotencyKeys } from './memory-idempotency-keys.js';

/** Options of the memory store. */
export interface MemorySessionStoreOptions {
  /**
   * Clock for `updatedAt` and key expiry.
   * @defaultValue `() => new Date()`
   */
  now?: () => Date;
  /**
   * The map the store keeps its sessions in (the sandbox passes its own).
   * @defaultValue a new, empty one
   */
  sessions?: Map<string, Session>;
  /**
   * Seconds an Idempotency-Key's answer is kept.
   * @defaultValue {@link IDEMPOTENCY_TTL_SECONDS} (86 400: 24 h)
   */
  idempotencyTtlSeconds?: number;
  /**
   * Idempotency-Keys kept at most, least recently used dropped first; about 250 B each (docs/bounds.md).
   * @defaultValue {@link DEFAULT_IDEMPOTENCY_MAX_KEYS} (100 000)
   */
  idempotencyMaxKeys?: number;
}

export { DEFAULT_IDEMPOTENCY_MAX_KEYS };

/**
 * Creates an empty in-memory store. A resume, its event and its key record form one critical
 * section: no await between the read and the writes. A 404 is not recorded under a key
 * (x-decisions: idempotency-key): a retry may find the session.
 * @example
 * const store = createMemorySessionStore();
 * await store.seed([{ id: 'sess_1', status: 'paused' }]);
 */
export function createMemorySessionStore(options: MemorySessionStoreOptions = {}): SessionStore {
  const now = options.now ?? (() => new Date());
  const sessions = options.sessions ?? new Map<string, Session>();
  const { idempotencyTtlSeconds = IDEMPOTENCY_TTL_SECONDS, idempotencyMaxKeys: maxKeys = DEFAULT_IDEMPOTENCY_MAX_KEYS } = options;
  checkInteger('createMemorySessionStore: idempotencyTtlSeconds', idempotencyTtlSeconds, { min: 1 });
  checkInteger('createMemorySessionStore: idempotencyMaxKeys', maxKeys, { min: 1 });
  const ttlMs = idempotencyTtlSeconds * 1000;
  const keys = createIdempotencyKeys(maxKeys);
  return {
    async resume(id, resumeOptions = {}): Promise<ResumeTransition> {
      const at = now();
      const idem = resumeOptions.idempotency;
      if (!idem) return decideResume(sessions, id, at, resumeOptions);
      const mapKey = JSON.stringify([idem.scope, idem.key]);
      const seen = keys.live(mapKey, at.getTime());
      if (seen) {
        if (seen.sessionId !== id) return { kind: 'key_reused' };
        keys.remember(mapKey, seen, at.getTime());
        return { kind: 'replayed', answer: JSON.parse(seen.answer) as RecordedAnswer };
      }
      const transition = decideResume(sessions, id, at, resumeOptions);
      if (transition.kind === 'resumed' || transition.kind === 'not_paused') {
        keys.remember(mapKey, { sessionId: id, answer: JSON.stringify(idem.answers[transition.kind]), expiresAt: at.getTime() + ttlMs }, at.getTime());
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

function decideResume(sessions: Map<string, Session>, id: string, at: Date, options: StoreResumeOptions): ResumeTransition {
  const session = sessions.get(id);
  if (!session) return { kind: 'not_found' };
  if (session.status !== PAUSED) return { kind: 'not_paused', status: session.status };
  // Formatted (and the trace context read) only here: most resumes (409, 404) never need them.
  const { trace } = options;
  const resumed = { id, status: RUNNING, updatedAt: at.toISOString() };
  sessions.set(id, resumed);
  return { kind: 'resumed', session: { ...resumed }, event: resumedEvent(`msg_${randomUUID()}`, id, resumed.updatedAt, trace) };
}
