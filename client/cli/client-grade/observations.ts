/**
 * What `client grade` saw: every request that reached its server, what it did with each, and
 * how the client's run ended. The checks judge only these.
 */
import type { Fault, Scenario } from './scenarios.js';

/** One request, and what the grader did with it. */
export interface Attempt {
  /** Order of arrival over the run, from 1. */
  seq: number;
  method: string;
  /** The request target as sent (path and query). */
  target: string;
  /** The scenario whose resume path this is; undefined for any other path or id. */
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
  /** When the request was complete, in ms from the start of the run. */
  receivedAt: number;
  /** What the grader did. */
  fault: Fault['kind'];
  /** The status answered, if an answer was sent. */
  status?: number;
  /** The answer's Retry-After, in seconds. */
  retryAfterSeconds?: number;
  /** Whether the answer was the recorded one (Idempotent-Replayed: true). */
  replayed?: boolean;
  /** When the answer was sent or the connection ended, in ms from the start of the run. */
  endedAt?: number;
  /** Who ended an attempt left without an answer: the client closing it, or the grader at the hang limit. */
  abandonedBy?: 'client' | 'grader';
}

/** How the observation ended. */
export type RunEnd =
  /** The client under test exited (with --run). */
  | { kind: 'exited'; code: number | null; signal: string | null }
  /** The user ended --serve (Ctrl-C or SIGTERM). */
  | { kind: 'stopped'; signal: string }
  /** The grader's time limit ended it: the last call may not be finished. */
  | { kind: 'time-limit'; afterMs: number };

/** Everything seen in one run. */
export interface Observations {
  scenarios: readonly Scenario[];
  attempts: readonly Attempt[];
  /** Requests refused unrecorded once the record was full (fault-server.ts, MAX_RECORDED_ATTEMPTS). */
  refused: number;
  end: RunEnd;
  /** The API key the client was given. */
  apiKey: string;
  /** How long the grader held a hung attempt before resetting it, in ms. */
  hangLimitMs: number;
}

/** The attempts of one scenario's session id, in order. */
export function attemptsOf(obs: Observations, scenario: Scenario): Attempt[] {
  return obs.attempts.filter((a) => a.scenario === scenario);
}

/**
 * Whether the call of `scenario` is over as far as the wire shows: the client sent a request for
 * a later session id after its last attempt, or the run ended by the client's exit or the user.
 */
export function callSettled(obs: Observations, scenario: Scenario): boolean {
  if (obs.end.kind !== 'time-limit') return true;
  const last = attemptsOf(obs, scenario).at(-1);
  return last !== undefined && obs.attempts.some((a) => a.seq > last.seq && a.scenario !== scenario);
}

/** The status answered to `attempt`, with its Retry-After or replay mark. */
function answerOf(attempt: Attempt): string {
  const retryAfter = attempt.retryAfterSeconds === undefined ? '' : ` (Retry-After: ${attempt.retryAfterSeconds})`;
  return `${attempt.status}${retryAfter}${attempt.replayed ? ' (Idempotent-Replayed)' : ''}`;
}

/** What each attempt met and how long after the previous one it came, for evidence: "2 attempts: 503 (Retry-After: 1), 1003 ms later 200". */
export function describeAttempts(attempts: readonly Attempt[]): string {
  const parts = attempts.map((a, i) => {
    const what = a.status !== undefined ? answerOf(a) : a.fault === 'hang' ? `no answer (closed by the ${a.abandonedBy ?? 'end of the run'})` : 'connection reset';
    const previous = attempts[i - 1];
    return previous?.endedAt === undefined ? what : `${Math.round(a.receivedAt - previous.endedAt)} ms later ${what}`;
  });
  return `${attempts.length} attempt${attempts.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/** The wait before each retry of `attempts`: from the end of one attempt to the next request, in ms. */
export function retryDelays(attempts: readonly Attempt[]): number[] {
  return attempts.slice(1).map((a, i) => a.receivedAt - (attempts[i]?.endedAt ?? a.receivedAt));
}
