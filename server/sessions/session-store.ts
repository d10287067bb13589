/**
 * The `SessionStore` role: where sessions live and the one atomic transition the source
 * describes (paused → running on resume, source spec §3). Outcomes the spec names are
 * returned as values; only infrastructure failures throw (`StoreUnavailableError`).
 */

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

/** Outcome of `resume`: exactly one per call, decided atomically. */
export type ResumeOutcome =
  | { kind: 'resumed'; session: Session }
  | { kind: 'not_found' }
  | { kind: 'not_paused'; status: string };

/** Stores sessions and resumes them atomically, also across processes sharing the backend. */
export interface SessionStore {
  /** Flips a paused session to `running`; of concurrent calls on one session exactly one gets `resumed`. */
  resume(id: string): Promise<ResumeOutcome>;
  /** Reads one session, or undefined when there is none. */
  get(id: string): Promise<Session | undefined>;
  /** Creates the sessions that do not exist yet; never overwrites an existing one. Returns how many were created. */
  seed(sessions: readonly SessionSeed[]): Promise<{ created: number }>;
  /** Resolves when the backend answers; throws `StoreUnavailableError` otherwise. */
  ping(): Promise<void>;
}

/** The backend did not answer (or answered with a failure); rendered as 503 service_unavailable. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/** The status a session must have to be resumed (source spec §3), and the one it gets (x-decisions: session-status). */
export const PAUSED = 'paused';
/** Status of a resumed session (x-decisions: session-status). */
export const RUNNING = 'running';
