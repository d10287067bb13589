/**
 * The idempotent-replay rule across resume answers (x-decisions: idempotency-key): once an
 * answer to (API key, Idempotency-Key) is recorded, a later request with the same key and
 * session gets that answer again with `Idempotent-Replayed: true`, and one for another session
 * gets 422. Only answers the service records are remembered (a resume's 200 and not_paused);
 * a repeat answered before the route (rate limit, store down, a refused request) is not graded.
 */
import { canonicalJson } from '@session-resume-api/runtime/event-identity';
import { sha256Hex } from '@session-resume-api/runtime/sha256';
import { RESUME_RETRY_POLICY } from '@session-resume-api/runtime/behaviour';
import { parseJson } from './api-checks.js';
import { header, type Exchange } from './exchange.js';
import type { RecentMap } from './recent-map.js';
import type { Finding } from './watch-rules.js';

/** A recorded answer, as small as the rule needs (no secret: the API key is a digest in the map key). */
export interface RecordedAnswer {
  sessionId: string;
  status: number;
  body: string;
  endedAt: number;
}

/** Answers that came from the resume route, where the key is looked up. */
const ROUTE_STATUSES = new Set([200, 404, 409, 422]);

/** Checks `exchange` against the answer recorded for its key, then records it when the service would. */
export function checkReplay(exchange: Exchange & { status: number }, sessionId: string, recorded: RecentMap<RecordedAnswer>): Finding | undefined {
  const keys = exchange.requestHeaders.get(RESUME_RETRY_POLICY.idempotencyKey.header.toLowerCase());
  const key = keys?.length === 1 ? keys[0] : undefined;
  if (key === undefined || !ROUTE_STATUSES.has(exchange.status)) return undefined;
  const scope = `${sha256Hex(header(exchange.requestHeaders, 'authorization') ?? '')} ${key}`;
  const earlier = recorded.get(scope);
  const body = canonicalBody(exchange.responseBody ?? '');
  if (!earlier || earlier.endedAt > exchange.startedAt) {
    if (isRecordable(exchange.status, body)) recorded.set(scope, { sessionId, status: exchange.status, body, endedAt: exchange.endedAt });
    return undefined;
  }
  const at = new Date(earlier.endedAt).toISOString();
  if (earlier.sessionId !== sessionId) {
    return exchange.status === 422
      ? { rule: 'idempotent-replay' }
      : { rule: 'idempotent-replay', fault: `Idempotency-Key used at ${at} for another session answered ${exchange.status}, not 422` };
  }
  const faults: string[] = [];
  if (exchange.status !== earlier.status) faults.push(`status ${exchange.status}, the recorded answer (${at}) was ${earlier.status}`);
  else if (body !== earlier.body) faults.push(`body differs from the recorded answer (${at})`);
  const replayed = header(exchange.responseHeaders, 'idempotent-replayed');
  if (replayed !== 'true') faults.push(`Idempotent-Replayed is ${replayed === undefined ? 'missing' : JSON.stringify(replayed)}`);
  return faults.length ? { rule: 'idempotent-replay', fault: `repeated Idempotency-Key: ${faults.join('; ')}` } : { rule: 'idempotent-replay' };
}

/** The service records a resume's 200 and its not_paused answer, nothing else. */
function isRecordable(status: number, body: string): boolean {
  const notPaused = RESUME_RETRY_POLICY.outcomes.notPaused;
  return status === 200 || (status === notPaused.status && body.includes(`"error":"${notPaused.code}"`));
}

/** A JSON body's canonical text (member order and spacing do not count), else the text itself. */
function canonicalBody(text: string): string {
  const parsed = parseJson(text);
  return parsed.ok ? canonicalJson(parsed.value) : text;
}
