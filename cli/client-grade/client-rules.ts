/**
 * The rules a client resuming sessions keeps, as one list: `client grade` checks each one
 * against what the client did on the wire, in this order. A rule added here without a check
 * does not compile (run-client-grade.ts keys its checks by these ids).
 */

/** One rule of a resuming client. */
export interface ClientRule {
  /** Stable id, used in `client grade --json` and the docs' anchors. */
  id: string;
  /** Short name of the check, for the report line. */
  title: string;
  /** What the real service does when a client breaks it, said after the evidence of a failure. */
  broken: string;
}

/** The rules, in the order `client grade` reports them. */
export const CLIENT_RULES = [
  {
    id: 'request',
    title: 'request as the contract says',
    broken: 'The service answers 401 to a missing or wrong Bearer key and 404 to another path, and refuses a body that is not a JSON object.',
  },
  {
    id: 'retry-503',
    title: '503 retried after Retry-After',
    broken: 'A 503 on resume means the outcome is unknown: only a retry with the same Idempotency-Key tells the caller whether the session resumed.',
  },
  {
    id: 'retry-429',
    title: '429 retried after Retry-After',
    broken: 'The service answers 429 again to every request before Retry-After has passed, and each of them counts against the limit.',
  },
  {
    id: 'retry-after-cap',
    title: 'long Retry-After honoured or reported',
    broken: 'Beyond the cap, a client following the contract gives the wait back to its caller instead of holding the call that long; a retry sooner than Retry-After gets 429 again and counts against the limit.',
  },
  {
    id: 'retry-network',
    title: 'network failure retried',
    broken: 'A reset connection tells nothing about the resume: a caller that gives up reports a failure for a call that a retry would have finished.',
  },
  {
    id: 'retry-500',
    title: '500 as the retry policy says',
    broken: 'A 500 (internal_error) says nothing of whether the resume applied: only a retry with the same Idempotency-Key finds out, when the policy retries it.',
  },
  {
    id: 'idempotency-key',
    title: 'one Idempotency-Key per resume',
    broken: 'Without the same key on every attempt, the service cannot tell a retry from a new resume: a retry of a resume that was applied reads as not_paused, and a key reused for another session gets 422.',
  },
  {
    id: 'answer-lost',
    title: 'lost answer ends as resumed',
    broken: 'The service applied the resume and recorded its answer under the Idempotency-Key: only a retry with that key gets it back (Idempotent-Replayed: true).',
  },
  {
    id: 'no-retry-4xx',
    title: '400, 401, 404, 422 not retried',
    broken: 'The service answers the same again: a retry only adds load and counts against the rate limit.',
  },
  {
    id: 'not-paused',
    title: '409 not_paused is an outcome',
    broken: 'not_paused is the answer for a session that is not paused: it stays so, and a retry gets the same answer.',
  },
  {
    id: 'backoff',
    title: 'bounded attempts, jittered back-off',
    broken: 'Clients that retry without a bound or at fixed times retry together after an outage and keep the service down (a retry storm).',
  },
  {
    id: 'timeout',
    title: 'hung answer abandoned',
    broken: 'A connection that never answers holds a caller without a deadline forever; the service gives no answer for it.',
  },
] as const satisfies readonly ClientRule[];

/** The id of a rule of the list. */
export type ClientRuleId = (typeof CLIENT_RULES)[number]['id'];
