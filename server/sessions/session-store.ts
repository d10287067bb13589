/** The `SessionStore` role: spec outcomes are returned as values; only infrastructure failures throw. */
import { RESUME_RETRY_POLICY } from '@session-resume-api/runtime/behaviour';
import type { TraceContext } from '@session-resume-api/runtime/trace-context';
import type { WebhookMessage } from '../core/webhook-message.js';

/** A session as the reference server keeps it; `status` stays open (x-decisions: session-status). */
export interface Session {
  id: string;
  /** `paused`, `running`, or any other seeded value (e.g. `cancelled`). */
  status: string;
  /** RFC 3339 UTC time of the last change, e.g. 2026-11-21T16:00:00.000Z. */
  updatedAt: string;
}

/** One entry of a seed file: `{ "id": "...", "status": "paused" | "running" | ... }`. */
export interface SessionSeed {
  id: string;
  status: string;
}

/** An answer as recorded for an Idempotency-Key: the HTTP status and the JSON body. */
export interface RecordedAnswer {
  status: number;
  body: unknown;
}

/** The answers the caller gives for each first-time transition, recorded with the key (x-decisions: idempotency-key). */
export type IdempotentAnswers = Record<'resumed' | 'not_found' | 'not_paused', RecordedAnswer>;

/** Per-call options of `SessionStore.resume` (the client's `ResumeOptions` are what a caller sends; these, what the store records). */
export interface StoreResumeOptions {
  /**
   * Record the answer under (scope, key) for the store's TTL, in the same atomic step; a 404 is not recorded.
   * @defaultValue none: nothing is recorded (a request without an Idempotency-Key)
   */
  idempotency?: {
    scope: string;
    key: string;
    answers: IdempotentAnswers;
  };
  /**
   * Kept with the event (and, on Redis, with the outbox's copy).
   * @defaultValue none: the event starts a new trace when it is delivered
   */
  trace?: TraceContext;
}

/** Result of `resume`: exactly one per call, decided atomically. */
export type ResumeTransition =
  | { kind: 'resumed'; session: Session; event: WebhookMessage }
  | { kind: 'not_found' }
  | { kind: 'not_paused'; status: string }
  /** The key was seen before for this session: the recorded answer, nothing changed now. */
  | { kind: 'replayed'; answer: RecordedAnswer }
  /** The key was used before with another session id (422). */
  | { kind: 'key_reused' };

/** Stores sessions and resumes them atomically, also across processes sharing the backend. */
export interface SessionStore {
  /** Flips a paused session to `running` and writes its event in the same step; of concurrent calls one gets `resumed`. */
  resume(id: string, options?: StoreResumeOptions): Promise<ResumeTransition>;
  /** Reads one session, or undefined when there is none. */
  get(id: string): Promise<Session | undefined>;
  /** Creates missing sessions, never overwrites; returns how many were created. */
  seed(sessions: readonly SessionSeed[]): Promise<{ created: number }>;
  /** Resolves when the backend answers; throws `StoreUnavailableError` otherwise. */
  ping(): Promise<void>;
}

/** Default time an Idempotency-Key and its answer are kept, in seconds: x-retry-policy `idempotencyKey.retentionMs` (`IDEMPOTENCY_TTL`). */
export const IDEMPOTENCY_TTL_SECONDS = RESUME_RETRY_POLICY.idempotencyKey.retentionMs / 1000;

/** Default cap on the Idempotency-Keys one memory store keeps (`IDEMPOTENCY_MAX_KEYS`); about 250 B each. */
export const DEFAULT_IDEMPOTENCY_MAX_KEYS = 100_000;

/** The status a session must have to be resumed, and the one it gets (x-decisions: session-status). */
export const PAUSED = 'paused';
/** Status of a resumed session. */
export const RUNNING = 'running';
