/**
 * The fetch layer under openapi-fetch: one timeout per attempt, and retries of 429, 502, 503,
 * 504 and network failures with backoff, honouring Retry-After up to a cap
 * (x-decisions: rate-limit, store-unavailable). Browser-safe: no Node built-ins.
 */
import { fullJitterDelayMs } from '../spec/backoff.js';
import { describeFetchError, failureCode, SessionsClientError } from './errors.js';

/**
 * A fetch that takes a Request (the shape openapi-fetch calls) and an `init` carrying the
 * attempt's signal again; pass `init` on to the real fetch, or timeouts may not fire.
 */
export type FetchLike = (input: Request, init?: { signal?: AbortSignal }) => Promise<Response>;

/** Statuses worth another attempt: rate limited (RFC 6585 §4) and gateway/unavailable (RFC 9110 §15.6.3-5). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** Base of the exponential backoff when the answer has no Retry-After, in ms. */
const BACKOFF_BASE_MS = 250;

/** Settings of `createRetryingFetch`. */
export interface RetryOptions {
  fetch: FetchLike;
  /** Retries after the first attempt (0 = never retry). */
  maxRetries: number;
  /** Deadline of each attempt, in ms; its signal stays on the response, so it also bounds the body. */
  timeoutMs: number;
  /** Longest single wait between attempts, in ms; a Retry-After beyond it ends the retries. */
  maxRetryDelayMs: number;
}

/**
 * A request given as its URL and how to send one attempt of it with the attempt's signal:
 * lets a caller skip building a Request per call when its fetch takes a URL and `init`.
 */
export interface RequestPlan {
  url: string;
  send(signal: AbortSignal): Promise<Response>;
}

/** Per-request hooks and settings of one call through `createRetryingFetch`. */
export interface AttemptHooks {
  /** Told the number of each attempt as it starts. */
  onAttempt?: (attempt: number) => void;
  /** The caller's abort signal, or undefined for none (when the key is absent: the request's own signal). */
  signal?: AbortSignal | undefined;
  /**
   * Given the `release` of the returned answer's deadline: the caller reads the body, then
   * calls `release()` so that the attempt's timer and abort controller are freed at once
   * instead of when the timer ends. Without this hook the deadline runs its course.
   */
  onDeadline?: (release: () => void) => void;
}

/**
 * Reads Retry-After (RFC 9110 §10.2.3): `delay-seconds` or an HTTP-date. Returns whole seconds
 * from `now` (never negative), or undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, or the obsolete RFC 850 and asctime forms.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** Full-jitter exponential backoff for `attempt` (1-based), capped at `capMs`. */
export function backoffDelay(attempt: number, capMs: number, random: () => number = Math.random): number {
  return fullJitterDelayMs(attempt, { baseDelayMs: BACKOFF_BASE_MS, maxDelayMs: capMs }, random);
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

/** One attempt's deadline: its signal, whether the timer fired, and `release` to free it early. */
interface Deadline {
  signal: AbortSignal;
  timedOut(): boolean;
  /** Clears the timer and stops following the caller's signal; the signal never fires after this. */
  release(): void;
}

/**
 * One attempt's abort signal: fires when the caller aborts or after `timeoutMs`. Built from a
 * controller held by its own timer, not `AbortSignal.any([caller, AbortSignal.timeout()])`:
 * Node 20 can garbage-collect those composites mid-request so the timeout never fires
 * (nodejs/node#57736), which hung the CLI under load.
 */
function startDeadline(caller: AbortSignal | undefined, timeoutMs: number): Deadline {
  const controller = new AbortController();
  let expired = false;
  const onCallerAbort = () => controller.abort(caller?.reason);
  const timer = setTimeout(() => {
    expired = true;
    caller?.removeEventListener('abort', onCallerAbort);
    controller.abort(new DOMException(`No answer within ${timeoutMs} ms.`, 'TimeoutError'));
  }, timeoutMs);
  // Node: a finished call must not hold the process open until the timer ends (browsers have no unref).
  (timer as { unref?: () => void }).unref?.();
  const release = () => {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onCallerAbort);
  };
  // Most calls have no caller signal: no listener to add or remove then.
  if (caller?.aborted) controller.abort(caller.reason);
  else caller?.addEventListener('abort', onCallerAbort, { once: true });
  return { signal: controller.signal, timedOut: () => expired, release };
}

/**
 * Wraps `options.fetch` with timeouts and retries. Throws `SessionsClientError` only when no
 * answer arrives; a retryable answer still there after the last attempt is returned as is.
 * Each attempt calls `options.fetch(request, { signal })` with the attempt's signal in `init`:
 * undici drops the abort of a signal that reaches fetch only inside a Request once a garbage
 * collection has run (nodejs/undici#4068). A request with a body is cloned for each attempt
 * that may be followed by another; a bodyless one is passed as is. A `RequestPlan` sends
 * each attempt itself, with the attempt's signal.
 */
export function createRetryingFetch(options: RetryOptions): (request: Request | RequestPlan, hooks?: AttemptHooks) => Promise<Response> {
  const { maxRetries, timeoutMs, maxRetryDelayMs } = options;
  return async (request, hooks = {}) => {
    const plan = request instanceof Request ? undefined : request;
    const caller = 'signal' in hooks ? hooks.signal : plan ? undefined : (request as Request).signal;
    const fail = (code: 'network' | 'timeout' | 'aborted', message: string, cause: unknown, attempts: number) =>
      new SessionsClientError(code, message, { cause, url: request.url, attempts });
    const wait = async (ms: number, attempt: number) => {
      try {
        await sleep(ms, caller);
      } catch (reason) {
        throw fail('aborted', `The request to ${request.url} was aborted.`, reason, attempt);
      }
    };
    for (let attempt = 1; ; attempt++) {
      hooks.onAttempt?.(attempt);
      const deadline = startDeadline(caller, timeoutMs);
      let response: Response;
      try {
        if (plan) response = await plan.send(deadline.signal);
        else {
          const req = request as Request;
          const input = req.body !== null && attempt <= maxRetries ? req.clone() : req;
          response = await options.fetch(input, { signal: deadline.signal });
        }
      } catch (error) {
        deadline.release();
        const code = failureCode(error, { callerAborted: Boolean(caller?.aborted), timedOut: deadline.timedOut() });
        if (code === 'aborted') throw fail('aborted', `The request to ${request.url} was aborted.`, caller?.reason ?? error, attempt);
        // A timed-out attempt is not retried: the service may still be working on it.
        if (code === 'timeout') {
          throw fail('timeout', `No answer from ${request.url} within ${timeoutMs} ms.`, deadline.signal.reason ?? error, attempt);
        }
        // Refused, reset, DNS or CORS failure: browsers do not say which, so all are retried.
        if (attempt > maxRetries) {
          throw fail('network', `Cannot reach ${request.url}: ${describeFetchError(error)}.`, error, attempt);
        }
        await wait(backoffDelay(attempt, maxRetryDelayMs), attempt);
        continue;
      }
      const final = () => {
        // The signal stays on the response and bounds the body: the caller frees it once read.
        hooks.onDeadline?.(deadline.release);
        return response;
      };
      if (!RETRYABLE_STATUSES.has(response.status) || attempt > maxRetries) return final();
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      const delayMs = retryAfter === undefined ? backoffDelay(attempt, maxRetryDelayMs) : retryAfter * 1000;
      // A server asking for a longer wait than we accept gets its answer back to the caller.
      if (delayMs > maxRetryDelayMs) return final();
      await response.body?.cancel().catch(() => undefined);
      deadline.release();
      await wait(delayMs, attempt);
    }
  };
}
