/**
 * The scripted sessions of `client grade`: one session id per call the client makes, each with
 * the faults its attempts meet, in order (the last one repeats), and the rule it serves.
 */
import type { ClientRuleId } from './client-rules.js';
import { RESUME_RETRY_POLICY } from '@session-resume-api/runtime/behaviour';

/** What the grader does with one attempt. */
export type Fault =
  /** Answers the spec's named example of the resume operation, with Retry-After when given. */
  | { kind: 'answer'; example: string; retryAfterSeconds?: number }
  /** Behaves as the service: resumes once, replays the recorded answer to the same key, else not_paused. */
  | { kind: 'resume' }
  /** Resets the connection without answering; nothing is applied. */
  | { kind: 'reset' }
  /** Applies the resume (recording its answer under the key), then resets the connection: the answer is lost. */
  | { kind: 'apply-then-reset' }
  /** Answers nothing until the client gives up, or resets the connection after the hang limit. */
  | { kind: 'hang' };

/** One call the client makes: its session id, its faults and the rule it is graded by. */
export interface Scenario {
  sessionId: string;
  rule: ClientRuleId;
  /** The fault of each attempt; the last one repeats for every later attempt. */
  script: readonly [Fault, ...Fault[]];
}

/** Settings of the faults. */
export interface FaultSettings {
  /** Retry-After of the 503, in seconds. */
  unavailableRetryAfterSeconds: number;
  /** Retry-After of the 429, in seconds. */
  rateLimitedRetryAfterSeconds: number;
  /** Calls that meet 503 without Retry-After on every attempt, to see the back-off. */
  backoffCalls: number;
}

/** Retry-After of the long 429: one second more than the longest wait the policy accepts. */
export const LONG_RETRY_AFTER_SECONDS = Math.ceil(RESUME_RETRY_POLICY.retryAfter.maxMs / 1000) + 1;

const answer = (example: string, retryAfterSeconds?: number): Fault =>
  retryAfterSeconds === undefined ? { kind: 'answer', example } : { kind: 'answer', example, retryAfterSeconds };
const RESUME: Fault = { kind: 'resume' };

/** The scenarios of one run, in the order the client is to resume their session ids. */
export function createScenarios(settings: FaultSettings): Scenario[] {
  const scenario = (name: string, rule: ClientRuleId, ...script: [Fault, ...Fault[]]): Scenario => ({ sessionId: `sess_grade_${name}`, rule, script });
  return [
    scenario('503', 'retry-503', answer('outcomeUnknown', settings.unavailableRetryAfterSeconds), RESUME),
    scenario('429', 'retry-429', answer('rateLimited', settings.rateLimitedRetryAfterSeconds), RESUME),
    scenario('429_long', 'retry-after-cap', answer('rateLimited', LONG_RETRY_AFTER_SECONDS), RESUME),
    scenario('reset', 'retry-network', { kind: 'reset' }, RESUME),
    scenario('500', 'retry-500', answer('internal'), RESUME),
    scenario('answer_lost', 'answer-lost', { kind: 'apply-then-reset' }, RESUME),
    scenario('400', 'no-retry-4xx', answer('invalidJson')),
    scenario('401', 'no-retry-4xx', answer('invalidToken')),
    scenario('404', 'no-retry-4xx', answer('notFound')),
    scenario('422', 'no-retry-4xx', answer('idempotencyKeyReused')),
    scenario('not_paused', 'not-paused', answer('notPaused')),
    ...Array.from({ length: settings.backoffCalls }, (_, n) => scenario(`backoff_${n + 1}`, 'backoff', answer('storeUnavailable'))),
    // Last: a client without a deadline stays here, and every other rule is graded already.
    scenario('hang', 'timeout', { kind: 'hang' }, RESUME),
  ];
}
