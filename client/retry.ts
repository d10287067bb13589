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

/** Per-request hooks and settings of one call through `createRetryingFetch`. */
export interface AttemptHooks {
  /** Told the number of each attempt as it starts. */
  onAttempt?: (attempt: number) => void;
  /** The caller's abort signal, or undefined for none (when the key is absent: the request's own signal). */
  signal?: AbortSignal | undefined;
}

/** The final answer: its Response, whose body is already read, and that body. */
export interface BufferedAnswer {
  response: Response;
  text: string;
}

/** Statuses whose Response cannot carry a body (Fetch standard: null body status). */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([204, 205, 304]);

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
  const { maxRetries, timeoutMs, maxRetryDelayMs } = options;
  return async (request, hooks = {}) => {
    const caller = 'signal' in hooks ? hooks.signal : request.signal;
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
        const input = request.body !== null && attempt <= maxRetries ? request.clone() : request;
        response = await options.fetch(input, { signal: deadline.signal });
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
      const final = () => readAnswer(response, { deadline, caller, url: request.url, timeoutMs }, (code, message, cause) => fail(code, message, cause, attempt));
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

/** Reads the final answer's body under its attempt's deadline, then frees the deadline. */
async function readAnswer(
  response: Response,
  at: { deadline: Deadline; caller: AbortSignal | undefined; url: string; timeoutMs: number },
  fail: (code: 'network' | 'timeout' | 'aborted', message: string, cause: unknown) => SessionsClientError,
): Promise<BufferedAnswer> {
  const { deadline, caller, url, timeoutMs } = at;
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    // The body stopped arriving: the caller aborted, the deadline passed, or the connection broke.
    const code = failureCode(error, { callerAborted: Boolean(caller?.aborted), timedOut: deadline.timedOut() });
    if (code === 'aborted') throw fail('aborted', `The request to ${url} was aborted.`, caller?.reason ?? error);
    if (code === 'timeout') throw fail('timeout', `The answer from ${url} did not complete within ${timeoutMs} ms.`, deadline.signal.reason ?? error);
    throw fail('network', `The answer from ${url} broke off: ${describeFetchError(error)}.`, error);
  } finally {
    deadline.release();
  }
  return { response, text };
}

/** The answer as a Response whose body can be read (again): its status, headers and text. */
export function replayable({ response, text }: BufferedAnswer): Response {
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  return new Response(NULL_BODY_STATUSES.has(response.status) ? null : text, init);
}
