/**
 * The fetch layer under openapi-fetch: one timeout per attempt, and the retries the resume
 * operation's x-retry-policy states (statuses, network failures, Retry-After as a floor up to a
 * cap, backoff), with every attempt re-sending the same request and so the same Idempotency-Key
 * (x-decisions: resume-retry-policy). Browser-safe: no Node built-ins.
 */
import { fullJitterDelayMs } from '@session-resume-api/runtime/backoff';
import { RESUME_RETRY_POLICY, type ResumeRetryPolicy } from '@session-resume-api/runtime/behaviour';
import { cappedRetryAfterMs, retryAfterMs } from '@session-resume-api/runtime/retry-after';
import { describeFetchError, failureCode, SessionsClientError, type SessionsClientErrorCode } from './errors.js';

/**
 * A fetch that takes a Request (the shape openapi-fetch calls) and an `init` carrying the
 * attempt's signal again; pass `init` on to the real fetch, or timeouts may not fire.
 */
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
  /** The caller's abort signal, or undefined for none (when the key is absent: the request's own signal). */
  signal?: AbortSignal | undefined;
}

/** The final answer: its Response, whose body is already read, that body, and the attempts it took. */
export interface BufferedAnswer {
  response: Response;
  text: string;
  /** Requests sent for this answer (1 + retries). */
  attempts: number;
}

/** Statuses whose Response cannot carry a body (Fetch standard: null body status). */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([204, 205, 304]);

/**
 * The policy's full-jitter exponential backoff for `attempt` (1-based), never above `capMs`
 * (the client's longest wait) nor the policy's own `backoff.maxMs`.
 */
export function backoffDelay(attempt: number, capMs: number, random: () => number = Math.random, policy: ResumeRetryPolicy = RESUME_RETRY_POLICY): number {
  return fullJitterDelayMs(attempt, { ...policy.backoff, maxMs: Math.min(policy.backoff.maxMs, capMs) }, random);
}

/** What one attempt came to, as the retry rule reads it. */
export type AttemptResult =
  /** No answer: the request failed (`network`), ran out of time (`timeout`) or the caller aborted. */
  | { kind: 'failed'; code: SessionsClientErrorCode }
  /** An answer with this status and Retry-After header (null when absent). */
  | { kind: 'answered'; status: number; retryAfter: string | null };

/** What follows an attempt: another one after `delayMs`, or none (the result stands). */
export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/** Whether the policy retries an attempt that got no answer for this reason. */
function retriesFailure(code: SessionsClientErrorCode, policy: ResumeRetryPolicy): boolean {
  // Refused, reset, DNS or CORS failure: browsers do not say which, so all are one kind.
  if (code === 'network') return policy.networkFailures === 'retry';
  if (code === 'timeout') return policy.timedOutAttempts === 'retry';
  return false;
}

/**
 * The retry rule, without I/O: whether attempt number `attempt` (1-based) is followed by
 * another, and after how long, as the policy says (x-retry-policy): its retryable statuses
 * and failures, while `attempt` ≤ `maxRetries`; an aborted attempt never. The wait is the
 * answer's Retry-After on the policy's statuses (a floor), else the backoff; a Retry-After
 * beyond `maxRetryDelayMs` ends the retries (the answer goes back to the caller) unless the
 * policy says to wait the cap.
 *
 * @param [clock] - `now` for an HTTP-date Retry-After (default Date.now()), `random` for the jitter (default Math.random)
 * @param [policy] - the rules (default the contract's {@link RESUME_RETRY_POLICY})
 * @example nextAttempt({ kind: 'answered', status: 503, retryAfter: '2' }, 1, { maxRetries: 2, maxRetryDelayMs: 10_000 }) // { retry: true, delayMs: 2000 }
 */
export function nextAttempt(
  result: AttemptResult,
  attempt: number,
  limits: Pick<RetryOptions, 'maxRetries' | 'maxRetryDelayMs'>,
  clock: { now?: number; random?: () => number } = {},
  policy: ResumeRetryPolicy = RESUME_RETRY_POLICY,
): RetryDecision {
  if (attempt > limits.maxRetries) return { retry: false };
  const backoff = () => ({ retry: true as const, delayMs: backoffDelay(attempt, limits.maxRetryDelayMs, clock.random, policy) });
  if (result.kind === 'failed') return retriesFailure(result.code, policy) ? backoff() : { retry: false };
  if (!policy.retryableStatuses.includes(result.status)) return { retry: false };
  const askedMs = policy.retryAfter.statuses.includes(result.status) ? retryAfterMs(result.retryAfter, clock.now) : undefined;
  if (askedMs === undefined) return backoff();
  const delayMs = cappedRetryAfterMs(askedMs, { maxMs: limits.maxRetryDelayMs, aboveMax: policy.retryAfter.aboveMax });
  return delayMs === undefined ? { retry: false } : { retry: true, delayMs };
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
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
 * One attempt's abort signal: fires when the caller aborts or after `timeoutMs`. Built from a
 * controller held by its own timer, not `AbortSignal.any([caller, AbortSignal.timeout()])`:
 * Node 20 can garbage-collect those composites mid-request so the timeout never fires
 * (nodejs/node#57736), which hung the CLI under load. A class, so that an attempt without a
 * caller signal allocates no closure beyond its timer's.
 */
class Deadline {
  readonly signal: AbortSignal;
  /** Whether the timer fired (the attempt ran out of time). */
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
    // Node: a finished call must not hold the process open until the timer ends (browsers have no unref).
    (this.timer as { unref?: () => void }).unref?.();
    // Most calls have no caller signal: no listener to add or remove then.
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

  /** Clears the timer and stops following the caller's signal; the signal never fires after this. */
  release(): void {
    clearTimeout(this.timer);
    if (this.onCallerAbort) this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

/** What a failed attempt needs to say: the URL, the caller's signal and the attempt's number. */
interface AttemptContext {
  url: string;
  caller: AbortSignal | undefined;
  attempt: number;
  timeoutMs: number;
}

function clientError(code: 'network' | 'timeout' | 'aborted', message: string, cause: unknown, at: AttemptContext): SessionsClientError {
  return new SessionsClientError(code, message, { cause, url: at.url, attempts: at.attempt });
}

/** Waits between attempts; the caller's abort ends the wait as an `aborted` error. */
async function waitBetween(ms: number, at: AttemptContext): Promise<void> {
  try {
    await sleep(ms, at.caller);
  } catch (reason) {
    throw clientError('aborted', `The request to ${at.url} was aborted.`, reason, at);
  }
}

/**
 * The error of an attempt whose request or body failed: the caller aborted, the deadline
 * passed, or the network failed (`what` says which part: "request" or "body").
 */
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
 * Wraps `options.fetch` with timeouts and retries, and reads the final answer's body within
 * the last attempt's deadline (so the deadline bounds the body, and its timer is freed as soon
 * as the body is in). Throws `SessionsClientError` only when no answer arrives or its body
 * breaks off; a retryable answer still there after the last attempt is returned as is.
 * Each attempt calls `options.fetch(request, { signal })` with the attempt's signal in `init`:
 * undici drops the abort of a signal that reaches fetch only inside a Request once a garbage
 * collection has run (nodejs/undici#4068). A request with a body is cloned for each attempt
 * that may be followed by another; a bodyless one is passed as is, so every attempt sends the
 * same headers (one Idempotency-Key).
 */
export function createRetryingFetch(options: RetryOptions): (request: Request, hooks?: AttemptHooks) => Promise<BufferedAnswer> {
  const { maxRetries, timeoutMs, policy = RESUME_RETRY_POLICY } = options;
  return async (request, hooks) => {
    const at: AttemptContext = { url: request.url, caller: hooks && 'signal' in hooks ? hooks.signal : request.signal, attempt: 1, timeoutMs };
    for (; ; at.attempt++) {
      const deadline = new Deadline(at.caller, timeoutMs);
      let response: Response;
      try {
        const input = request.body !== null && at.attempt <= maxRetries ? request.clone() : request;
        response = await options.fetch(input, { signal: deadline.signal });
      } catch (error) {
        deadline.release();
        const failure = attemptError(error, deadline, at, 'request');
        const next = nextAttempt({ kind: 'failed', code: failure.code }, at.attempt, options, {}, policy);
        if (!next.retry) throw failure;
        await waitBetween(next.delayMs, at);
        continue;
      }
      const answered = { kind: 'answered' as const, status: response.status, retryAfter: response.headers.get('retry-after') };
      const next = nextAttempt(answered, at.attempt, options, {}, policy);
      if (!next.retry) return readAnswer(response, deadline, at);
      await response.body?.cancel().catch(() => undefined);
      deadline.release();
      await waitBetween(next.delayMs, at);
    }
  };
}

/** Reads the final answer's body under its attempt's deadline, then frees the deadline. */
async function readAnswer(response: Response, deadline: Deadline, at: AttemptContext): Promise<BufferedAnswer> {
  try {
    // The body stops arriving when the caller aborts, the deadline passes, or the connection breaks.
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
