/**
 * The fetch layer under openapi-fetch: a timeout per attempt and the retries x-retry-policy states,
 * every attempt re-sending the same request and so the same Idempotency-Key (a request without one
 * retries only what applied nothing). Browser-safe.
 */
import { fullJitterDelayMs } from '@session-resume-api/runtime/backoff';
import { RESUME_RETRY_POLICY, type ResumeRetryPolicy } from '@session-resume-api/runtime/behaviour';
import { cappedRetryAfterMs, retryAfterMs } from '@session-resume-api/runtime/retry-after';
import { describeFetchError, failureCode, SessionsClientError, type SessionsClientErrorCode } from './errors.js';

/** A fetch taking a Request and an `init` with the attempt's signal: pass `init` on, or timeouts may not fire. */
export type FetchLike = (input: Request, init?: { signal?: AbortSignal }) => Promise<Response>;

/** Settings of `createRetryingFetch`. */
export interface RetryOptions {
  fetch: FetchLike;
  /** Retries after the first attempt (0 = never retry). */
  maxRetries: number;
  /** Deadline of each attempt, in ms; its signal stays on the response, so it also bounds the body. */
  timeoutMs: number;
  /** Longest single wait between attempts, in ms; a Retry-After beyond it ends the retries. */
  maxRetryDelayMs: number;
  /**
   * The rules of each decision.
   * @defaultValue {@link RESUME_RETRY_POLICY} (the contract's x-retry-policy)
   */
  policy?: ResumeRetryPolicy;
}

/** Per-request settings of one call through `createRetryingFetch`. */
export interface AttemptHooks {
  /** The caller's abort signal (when the key is absent: the request's own). */
  signal?: AbortSignal | undefined;
}

/** The final answer, its body already read, and the attempts it took. */
export interface BufferedAnswer {
  response: Response;
  text: string;
  attempts: number;
}

/** Fetch standard: null body statuses. */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([204, 205, 304]);

/** Full-jitter backoff for `attempt` (1-based), never above `capMs` nor the policy's `backoff.maxMs`. */
export function backoffDelay(attempt: number, capMs: number, random: () => number = Math.random, policy: ResumeRetryPolicy = RESUME_RETRY_POLICY): number {
  return fullJitterDelayMs(attempt, { ...policy.backoff, maxMs: Math.min(policy.backoff.maxMs, capMs) }, random);
}

/**
 * When a network failure happened: `beforeRequestSent` (refused, DNS, TLS: nothing reached the
 * service) or `afterRequestSent` (reset or closed once the request may have been written).
 */
export type NetworkFailureKind = 'beforeRequestSent' | 'afterRequestSent';

/** What one attempt came to, as the retry rule reads it. */
export type AttemptResult =
  /**
   * No answer: the request failed (`network`, `sent` telling when; absent counts as
   * `afterRequestSent`), ran out of time (`timeout`) or the caller aborted.
   */
  | { kind: 'failed'; code: SessionsClientErrorCode; sent?: NetworkFailureKind }
  /** An answer with this status and Retry-After header (null when absent). */
  | { kind: 'answered'; status: number; retryAfter: string | null };

/** What follows an attempt: another one after `delayMs`, or none (the result stands). */
export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

// Node's fetch (undici) names the failure in `cause.code`: these codes come before a byte of the
// request is written.
const BEFORE_REQUEST_SENT: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/** When a failed fetch failed: before a byte of the request was written, or after (the resume may have been applied). */
export function networkFailureKind(error: unknown): NetworkFailureKind {
  // `cause.errors` holds one failure per address when several were tried. Browsers say nothing
  // (a bare TypeError), and a reset may come before or after the request was written: both count
  // as `afterRequestSent`, the kind that may have applied the resume.
  const cause = (error as { cause?: { code?: unknown; errors?: unknown } } | null)?.cause;
  const causes: unknown[] = Array.isArray(cause?.errors) && cause.errors.length > 0 ? cause.errors : [cause];
  const before = causes.every((c) => BEFORE_REQUEST_SENT.has(String((c as { code?: unknown } | null)?.code)));
  return before ? 'beforeRequestSent' : 'afterRequestSent';
}

/**
 * Whether the resume may have been applied by an attempt that came to `result`: x-retry-policy
 * `mayHaveApplied` (a network failure of unknown kind counts as after the request was sent).
 * @example mayHaveApplied({ kind: 'answered', status: 502, retryAfter: null }) // true
 */
export function mayHaveApplied(result: AttemptResult, policy: ResumeRetryPolicy = RESUME_RETRY_POLICY): boolean {
  const rule = policy.mayHaveApplied;
  if (result.kind === 'answered') return rule.statuses.includes(result.status);
  if (result.code === 'timeout') return rule.timedOutAttempts;
  return result.code === 'network' && rule.networkFailures.includes(result.sent ?? 'afterRequestSent');
}

function retriesFailure(code: SessionsClientErrorCode, policy: ResumeRetryPolicy): boolean {
  // Refused, reset, DNS or CORS failure: browsers do not say which, so all are one kind.
  if (code === 'network') return policy.networkFailures === 'retry';
  if (code === 'timeout') return policy.timedOutAttempts === 'retry';
  return false;
}

/** The bounds of `nextAttempt`: retries, longest wait, and whether the request carries no Idempotency-Key. */
export type AttemptLimits = Pick<RetryOptions, 'maxRetries' | 'maxRetryDelayMs'> & {
  /** The request has no Idempotency-Key: only what applied nothing is retried (x-retry-policy `withoutIdempotencyKey`). */
  keyless?: boolean;
};

/**
 * The retry rule without I/O: whether attempt `attempt` (1-based) is followed by another and when.
 * Retryable statuses and failures while `attempt` ≤ `maxRetries`, never an abort; without a key,
 * none that may have applied the resume. The wait is the Retry-After on the policy's statuses (a
 * floor), else the backoff; one beyond `maxRetryDelayMs` ends the retries unless the policy says
 * to wait the cap.
 * @example nextAttempt({ kind: 'answered', status: 503, retryAfter: '2' }, 1, { maxRetries: 2, maxRetryDelayMs: 10_000 }) // { retry: true, delayMs: 2000 }
 */
export function nextAttempt(
  result: AttemptResult,
  attempt: number,
  limits: AttemptLimits,
  clock: { now?: number; random?: () => number } = {},
  policy: ResumeRetryPolicy = RESUME_RETRY_POLICY,
): RetryDecision {
  if (attempt > limits.maxRetries) return { retry: false };
  if (limits.keyless && (policy.withoutIdempotencyKey.retries !== 'notApplied' || mayHaveApplied(result, policy))) return { retry: false };
  const backoff = () => ({ retry: true as const, delayMs: backoffDelay(attempt, limits.maxRetryDelayMs, clock.random, policy) });
  if (result.kind === 'failed') return retriesFailure(result.code, policy) ? backoff() : { retry: false };
  if (!policy.retryableStatuses.includes(result.status)) return { retry: false };
  const askedMs = policy.retryAfter.statuses.includes(result.status) ? retryAfterMs(result.retryAfter, clock.now) : undefined;
  if (askedMs === undefined) return backoff();
  const delayMs = cappedRetryAfterMs(askedMs, { maxMs: limits.maxRetryDelayMs, aboveMax: policy.retryAfter.aboveMax });
  return delayMs === undefined ? { retry: false } : { retry: true, delayMs };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!signal) return void setTimeout(resolve, ms);
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One attempt's signal: the caller's abort or `timeoutMs`. A controller with its own timer, not
 * `AbortSignal.any([caller, AbortSignal.timeout()])`: Node 20 can garbage-collect those composites
 * mid-request so the timeout never fires (nodejs/node#57736). A class: no closure per attempt.
 */
class Deadline {
  readonly signal: AbortSignal;
  expired = false;
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly onCallerAbort: (() => void) | undefined;

  constructor(
    private readonly caller: AbortSignal | undefined,
    timeoutMs: number,
  ) {
    this.signal = this.controller.signal;
    this.timer = setTimeout(() => this.expire(timeoutMs), timeoutMs);
    // A finished call must not hold a Node process open (browsers have no unref).
    (this.timer as { unref?: () => void }).unref?.();
    if (caller?.aborted) this.controller.abort(caller.reason);
    else if (caller) {
      this.onCallerAbort = () => this.controller.abort(caller.reason);
      caller.addEventListener('abort', this.onCallerAbort, { once: true });
    }
  }

  private expire(timeoutMs: number): void {
    this.expired = true;
    if (this.onCallerAbort) this.caller?.removeEventListener('abort', this.onCallerAbort);
    this.controller.abort(new DOMException(`No answer within ${timeoutMs} ms.`, 'TimeoutError'));
  }

  release(): void {
    clearTimeout(this.timer);
    if (this.onCallerAbort) this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

interface AttemptContext {
  url: string;
  caller: AbortSignal | undefined;
  attempt: number;
  timeoutMs: number;
}

function clientError(code: 'network' | 'timeout' | 'aborted', message: string, cause: unknown, at: AttemptContext): SessionsClientError {
  return new SessionsClientError(code, message, { cause, url: at.url, attempts: at.attempt });
}

async function waitBetween(ms: number, at: AttemptContext): Promise<void> {
  try {
    await sleep(ms, at.caller);
  } catch (reason) {
    throw clientError('aborted', `The request to ${at.url} was aborted.`, reason, at);
  }
}

/** The error of a failed request or body: aborted, timed out, or network. */
function attemptError(error: unknown, deadline: Deadline, at: AttemptContext, what: 'request' | 'body'): SessionsClientError {
  const code = failureCode(error, { callerAborted: Boolean(at.caller?.aborted), timedOut: deadline.expired });
  if (code === 'aborted') return clientError('aborted', `The request to ${at.url} was aborted.`, at.caller?.reason ?? error, at);
  const timeoutReason = deadline.signal.reason ?? error;
  if (what === 'body') {
    if (code === 'timeout') return clientError('timeout', `The answer from ${at.url} did not complete within ${at.timeoutMs} ms.`, timeoutReason, at);
    return clientError('network', `The answer from ${at.url} broke off: ${describeFetchError(error)}.`, error, at);
  }
  if (code === 'timeout') return clientError('timeout', `No answer from ${at.url} within ${at.timeoutMs} ms.`, timeoutReason, at);
  return clientError('network', `Cannot reach ${at.url}: ${describeFetchError(error)}.`, error, at);
}

/**
 * Wraps `options.fetch` with timeouts and retries, and reads the final body within the last
 * attempt's deadline. A request without the policy's Idempotency-Key header is retried only after
 * failures that applied nothing (`nextAttempt`'s `keyless`). Throws `SessionsClientError` only when no answer arrives or its body breaks
 * off; a retryable answer after the last attempt is returned. The signal goes in `init` too:
 * undici drops the abort of a signal only inside a Request after a GC (nodejs/undici#4068). Only a
 * request with a body is cloned per attempt; a bodyless one keeps the same headers.
 */
export function createRetryingFetch(options: RetryOptions): (request: Request, hooks?: AttemptHooks) => Promise<BufferedAnswer> {
  const { maxRetries, timeoutMs, policy = RESUME_RETRY_POLICY } = options;
  return async (request, hooks) => {
    const at: AttemptContext = { url: request.url, caller: hooks && 'signal' in hooks ? hooks.signal : request.signal, attempt: 1, timeoutMs };
    const limits: AttemptLimits = { maxRetries, maxRetryDelayMs: options.maxRetryDelayMs, keyless: !request.headers.has(policy.idempotencyKey.header) };
    for (; ; at.attempt++) {
      const deadline = new Deadline(at.caller, timeoutMs);
      let response: Response;
      try {
        const input = request.body !== null && at.attempt <= maxRetries ? request.clone() : request;
        response = await options.fetch(input, { signal: deadline.signal });
      } catch (error) {
        deadline.release();
        const failure = attemptError(error, deadline, at, 'request');
        const next = nextAttempt({ kind: 'failed', code: failure.code, sent: networkFailureKind(error) }, at.attempt, limits, {}, policy);
        if (!next.retry) throw failure;
        await waitBetween(next.delayMs, at);
        continue;
      }
      const answered = { kind: 'answered' as const, status: response.status, retryAfter: response.headers.get('retry-after') };
      const next = nextAttempt(answered, at.attempt, limits, {}, policy);
      if (!next.retry) return readAnswer(response, deadline, at);
      // Cancelling only frees the connection of an answer we discard: a body that cannot be
      // cancelled has already failed or ended, and the retry goes ahead either way.
      await response.body?.cancel().catch(() => undefined);
      deadline.release();
      await waitBetween(next.delayMs, at);
    }
  };
}

async function readAnswer(response: Response, deadline: Deadline, at: AttemptContext): Promise<BufferedAnswer> {
  try {
    return { response, text: await response.text(), attempts: at.attempt };
  } catch (error) {
    throw attemptError(error, deadline, at, 'body');
  } finally {
    deadline.release();
  }
}

/** The answer as a Response whose body can be read (again): its status, headers and text. */
export function replayable({ response, text }: BufferedAnswer): Response {
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  return new Response(NULL_BODY_STATUSES.has(response.status) ? null : text, init);
}
