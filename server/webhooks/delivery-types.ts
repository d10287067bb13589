/** What the delivery engine records and reports, whatever its queue; the operator CLI and the metrics read it. */
import type { SessionEvent } from '@session-resume-api/runtime/types';

/** Where one event stands. */
export type DeliveryState = 'pending' | 'delivering' | 'delivered' | 'dead';

/**
 * `delivered` (200), `http_status` (another status), `timeout`, `network` (connection failed or
 * reset), `refused` (the URL policy refused the target before any request); `held_overflow` is
 * no attempt but the entry of an event sent to the dead letters without a request because the
 * endpoint's held backlog was full, and is not counted as one.
 */
export type AttemptResult = 'delivered' | 'http_status' | 'timeout' | 'network' | 'refused' | 'held_overflow';

/** How many attempts a history holds: every entry but a `held_overflow`, which made no request. */
export function attemptsMadeIn(history: readonly DeliveryAttempt[]): number {
  return history.filter((entry) => entry.result !== 'held_overflow').length;
}

/** One attempt as recorded with its event. */
export interface DeliveryAttempt {
  /** When the attempt started, ISO 8601 UTC. */
  at: string;
  result: AttemptResult;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  /** From the start of the attempt to its outcome, in ms. */
  durationMs: number;
  /** The first 1 kB of the response body (UTF-8), when there was one. */
  response?: string;
  /** Why an attempt without an answer failed: `deliverEvent`'s sentence (host and stage, never path or query). */
  reason?: string;
}

/** One event with its delivery history (`webhooks show --json` prints this shape). */
export interface DeliveryRecord {
  /** The webhook-id of every attempt and replay. */
  id: string;
  event: SessionEvent;
  state: DeliveryState;
  /** The target's origin (scheme, host, port): never its path or query, which may hold a token. */
  target: string;
  attempts: DeliveryAttempt[];
}

/** Events per state (`webhooks stats --json` prints this shape). */
export type DeliveryStats = Record<DeliveryState, number>;

/** Hooks the engine calls as it works; metrics implement them. Each must return at once; one that throws is logged and the delivery goes on. */
export interface DeliveryObserver {
  /** After every attempt. */
  attempt?(attempt: DeliveryAttempt): void;
  /** When an event is delivered: seconds from the event's creation to its delivery. */
  delivered?(seconds: number): void;
  /** When this instance changed the endpoint's state (x-decisions: endpoint-health). */
  endpointChanged?(change: { from: 'closed' | 'open' | 'disabled'; to: 'closed' | 'open' | 'disabled' }): void;
  /** When this instance sent an event to the dead letters because the endpoint's held backlog was full (x-decisions: endpoint-health). */
  heldOverflow?(overflow: { endpoint: string; id: string }): void;
}

/** The read side of the engine, for the operator CLI and the metrics. */
export interface DeliveryInspector {
  /** One event and its attempts, or undefined when there is none with that id. */
  show(id: string): Promise<DeliveryRecord | undefined>;
  /** Events, newest first, optionally of one state; at most `limit` (default 20). */
  list(options?: { state?: DeliveryState; limit?: number }): Promise<DeliveryRecord[]>;
  /** How many events are in each state. */
  stats(): Promise<DeliveryStats>;
}
