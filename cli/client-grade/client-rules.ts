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
    broken:
      'A 503 on resume means the service did not apply it: a caller that gives up reports a failure that a retry after Retry-After would have ended, and a retry sooner gets 503 again.',
  },
  {
    id: 'retry-429',
    title: '429 retried after Retry-After',
    broken: 'The service answers 429 again to every request before Retry-After has passed, and each of them counts against the limit.',
  },
  {
    id: 'retry-after-cap',
    title: 'long Retry-After honoured or reported',
    broken:
      'Beyond the cap, a client following the contract gives the wait back to its caller instead of holding the call that long; a retry sooner than Retry-After gets 429 again and counts against the limit.',
  },
  {
    id: 'retry-network',
    title: 'lost connection as the retry policy says',
    broken:
      'A connection lost after the request was sent tells nothing about the resume: with its Idempotency-Key a retry finds out (the recorded answer, or the resume now); without a key a retry may read not_paused for a resume that succeeded, so the call is reported instead.',
  },
  {
    id: 'retry-500',
    title: '500 as the retry policy says',
    broken:
      'A 500 (internal_error) says nothing of whether the resume applied: with its Idempotency-Key a retry finds out (the recorded answer, or the resume now); without a key a retry may read not_paused for a resume that succeeded, so the call is reported instead.',
  },
  {
    id: 'idempotency-key',
    title: 'one Idempotency-Key per resume, or none',
    broken:
      'Without the same key on every attempt, the service cannot tell a retry from a new resume: a retry of a resume that was applied reads as not_paused, and a key reused for another session gets 422.',
  },
  {
    id: 'answer-lost',
    title: 'lost answer: resumed with the key, reported without',
    broken:
      'The service applied the resume and recorded its answer under the Idempotency-Key: only a retry with that key gets it back (Idempotent-Replayed: true).',
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
    title: 'bounded attempts, back-off bounded and jittered per retry',
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
