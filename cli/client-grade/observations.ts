/** What `client grade` saw (requests, what it did with each, how the run ended): the checks judge only these. */
import type { Fault, Scenario } from './scenarios.js';

/** One request, and what the grader did with it. */
export interface Attempt {
  /** From 1, over the run. */
  seq: number;
  method: string;
  /** Path and query as sent. */
  target: string;
  /** Undefined for any other path or id. */
  scenario?: Scenario;
  /** 1 for the first request of its session id. */
  number: number;
  /** Every Authorization value the request carried. */
  authorization: string[];
  /** Every Idempotency-Key value the request carried. */
  idempotencyKeys: string[];
  contentType?: string;
  /** The body's first kilobyte. */
  body: string;
  bodyBytes: number;
  /** ms from the start of the run. */
  receivedAt: number;
  fault: Fault['kind'];
  status?: number;
  retryAfterSeconds?: number;
  /** Idempotent-Replayed: true. */
  replayed?: boolean;
  /** Answer begun or connection ended, ms from the start of the run. */
  endedAt?: number;
  /** Who ended an attempt left unanswered: the client, or the grader at the hang limit. */
  abandonedBy?: 'client' | 'grader';
}

/** How the observation ended. */
export type RunEnd =
  | { kind: 'exited'; code: number | null; signal: string | null }
  | { kind: 'stopped'; signal: string }
  /** The last call may not be finished. */
  | { kind: 'time-limit'; afterMs: number };

/** Everything seen in one run. */
export interface Observations {
  scenarios: readonly Scenario[];
  attempts: readonly Attempt[];
  /** Requests refused unrecorded once the record was full (fault-server.ts, MAX_RECORDED_ATTEMPTS). */
  refused: number;
  end: RunEnd;
  apiKey: string;
  /** How long a hung attempt was held before reset, ms. */
  hangLimitMs: number;
}

/** The attempts of one scenario's session id, in order. */
export function attemptsOf(obs: Observations, scenario: Scenario): Attempt[] {
  return obs.attempts.filter((a) => a.scenario === scenario);
}

/**
 * Over as far as the wire shows: the client exited, or a later session id was requested after
 * the call's last attempt. A run stopped by the user or the time limit may have cut a call
 * waiting to retry, so without a later request it is not over.
 */
export function callSettled(obs: Observations, scenario: Scenario): boolean {
  if (obs.end.kind === 'exited') return true;
  const last = attemptsOf(obs, scenario).at(-1);
  return last !== undefined && obs.attempts.some((a) => a.seq > last.seq && a.scenario !== scenario);
}

function answerOf(attempt: Attempt): string {
  const retryAfter = attempt.retryAfterSeconds === undefined ? '' : ` (Retry-After: ${attempt.retryAfterSeconds})`;
  return `${attempt.status}${retryAfter}${attempt.replayed ? ' (Idempotent-Replayed)' : ''}`;
}

/** For evidence: "2 attempts: 503 (Retry-After: 1), 1003 ms later 200". */
export function describeAttempts(attempts: readonly Attempt[]): string {
  const parts = attempts.map((a, i) => {
    const what =
      a.status !== undefined ? answerOf(a) : a.fault === 'hang' ? `no answer (closed by the ${a.abandonedBy ?? 'end of the run'})` : 'connection reset';
    const previous = attempts[i - 1];
    return previous?.endedAt === undefined ? what : `${Math.round(a.receivedAt - previous.endedAt)} ms later ${what}`;
  });
  return `${attempts.length} attempt${attempts.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/** From the end of one attempt to the next request, ms. */
export function retryDelays(attempts: readonly Attempt[]): number[] {
  return attempts.slice(1).map((a, i) => a.receivedAt - (attempts[i]?.endedAt ?? a.receivedAt));
}
