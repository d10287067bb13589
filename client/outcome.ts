/** Answer → outcome: the one place that reads the `not_paused` marker, whatever the status (x-decisions: not-paused-status). */
import type { ResumeResult } from '@session-resume-api/runtime/types';
import { parseRateLimit, type RateLimitInfo } from './rate-limit.js';
import { RESUME_RETRY_POLICY } from '@session-resume-api/runtime/behaviour';
import { retryAfterMs } from '@session-resume-api/runtime/retry-after';

/** The marker the service puts in the body text of a resume refused because the session is not paused. */
export const NOT_PAUSED_MARKER = RESUME_RETRY_POLICY.outcomes.notPaused.marker;

/** The final status and requests sent (1 + retries). */
export interface ResumeOutcomeBase {
  status: number;
  /** Above 1, an earlier attempt may have resumed the session: see the README on retries and not_paused. */
  attempts: number;
  /** The quota the answer reported (RateLimit fields); absent when it sent none or none readable. */
  rateLimit?: RateLimitInfo;
}

/** Every outcome but `resumed`: a message and the raw body text. */
export interface FailedResumeOutcome extends ResumeOutcomeBase {
  /** The body's `message` when it is JSON with one, else the start of the body text, else "HTTP <status>". */
  message: string;
  body: string;
}

/** What a resume came to; switch on `kind`. */
export type ResumeOutcome =
  | (ResumeOutcomeBase & { kind: 'resumed'; result: ResumeResult })
  | (FailedResumeOutcome & { kind: 'not_paused' })
  | (FailedResumeOutcome & { kind: 'not_found' })
  | (FailedResumeOutcome & { kind: 'unauthorized' })
  | (FailedResumeOutcome & { kind: 'rate_limited'; retryAfterSeconds: number | undefined })
  | (FailedResumeOutcome & { kind: 'unexpected' });

/** The values of `ResumeOutcome['kind']`. */
export type ResumeOutcomeKind = ResumeOutcome['kind'];

/** One answer of the service, as `toResumeOutcome` needs it. */
export interface ResumeAnswer {
  sessionId: string;
  status: number;
  headers: Headers;
  text: string;
  attempts: number;
  /** Clock for an HTTP-date Retry-After or a Unix-time rate-limit reset, in ms since the epoch (default Date.now()). */
  now?: number;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isResumeResult(value: unknown): value is ResumeResult {
  const v = value as { success?: unknown; message?: unknown } | null | undefined;
  return typeof v === 'object' && v !== null && typeof v.success === 'boolean' && typeof v.message === 'string';
}

function messageOf(json: unknown, text: string, status: number): string {
  const message = (json as { message?: unknown } | null | undefined)?.message;
  if (typeof message === 'string' && message) return message;
  const start = text.trim().slice(0, 200);
  return start || `HTTP ${status}`;
}

/**
 * Whether the body text carries the not_paused marker; an id containing the marker has its echoes
 * removed first, so "Session sess_not_paused_1 was not found." stays a not_found.
 */
export function hasNotPausedMarker(text: string, sessionId: string): boolean {
  if (!sessionId.includes(NOT_PAUSED_MARKER)) return text.includes(NOT_PAUSED_MARKER);
  const echoes = [sessionId, encodeURIComponent(sessionId), JSON.stringify(sessionId).slice(1, -1)];
  const stripped = echoes.reduce((t, echo) => t.split(echo).join(''), text);
  return stripped.includes(NOT_PAUSED_MARKER);
}

/** Maps one answer to its outcome: success first, then the marker (whatever the status), then the status. */
export function toResumeOutcome(answer: ResumeAnswer): ResumeOutcome {
  const { status, text } = answer;
  const rateLimit = parseRateLimit(answer.headers, answer.now);
  const common = { attempts: answer.attempts, ...(rateLimit ? { rateLimit } : {}) };
  const json = parseJson(text);
  // Source spec §4 rule 1: a resumed session is answered with success = true.
  if (status >= 200 && status < 300 && isResumeResult(json) && json.success === true) {
    return { kind: 'resumed', status, ...common, result: json };
  }
  const failed = { status, ...common, message: messageOf(json, text, status), body: text };
  // Source spec §4 rule 3: the marker decides, whatever the status (x-decisions: not-paused-status).
  if (hasNotPausedMarker(text, answer.sessionId)) return { kind: 'not_paused', ...failed };
  if (status === 404) return { kind: 'not_found', ...failed };
  // x-decisions: unauthorized; 403 is also read as a refused key.
  if (status === 401 || status === 403) return { kind: 'unauthorized', ...failed };
  if (status === 429) {
    const askedMs = retryAfterMs(answer.headers.get('retry-after'), answer.now);
    const retryAfterSeconds = askedMs === undefined ? undefined : Math.ceil(askedMs / 1000);
    return { kind: 'rate_limited', ...failed, retryAfterSeconds };
  }
  return { kind: 'unexpected', ...failed };
}
