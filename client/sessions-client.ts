/** The typed client of the Session Resume API on openapi-fetch. Browser-safe: no Node built-in here or below. */
import { DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_DELAY_MS, DEFAULT_TIMEOUT_MS } from '@session-resume-api/runtime/client-defaults';
import { checkInteger, OptionsError } from '@session-resume-api/runtime/options-error';
import createClient, { type Client } from 'openapi-fetch';
import { RESUME_PATH } from '@session-resume-api/runtime/resume-path';
import type { ApiPaths as paths } from 'session-resume-api-types';
import { toResumeOutcome, type ResumeOutcome } from './outcome.js';
import { createRetryingFetch, replayable, type BufferedAnswer, type FetchLike } from './retry.js';
import { PACKAGE_VERSION } from './version.js';

/** Options of `createSessionsClient`. */
export interface SessionsClientOptions {
  /** Base URL of the service without the /v1 prefix, e.g. "https://api.example.com". */
  baseUrl: string;
  /** The API key, sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /**
   * The fetch to use; also the hook for extra headers or instrumentation. Pass its `init` on: it carries the timeout signal.
   * @defaultValue `globalThis.fetch`
   */
  fetch?: FetchLike;
  /**
   * Deadline of each attempt, in ms, from sending to the end of the body.
   * @defaultValue {@link DEFAULT_TIMEOUT_MS}
   */
  timeoutMs?: number;
  /**
   * Retries after the first attempt, of the statuses and failures x-retry-policy lists; 0 disables them.
   * @defaultValue {@link DEFAULT_MAX_RETRIES}
   */
  maxRetries?: number;
  /**
   * Longest wait between attempts, in ms; a longer Retry-After ends the retries.
   * @defaultValue {@link DEFAULT_MAX_RETRY_DELAY_MS}
   */
  maxRetryDelayMs?: number;
  /**
   * User-Agent header; browsers send their own.
   * @defaultValue `"session-resume-api/<version>"` outside browsers
   */
  userAgent?: string;
}

/** Per-call options of `resume`. */
export interface ResumeOptions {
  /**
   * Aborts the call (and any wait between retries); the call then throws a SessionsClientError `aborted`.
   * @defaultValue none: the call ends by its answer, its timeouts or its retries only
   */
  signal?: AbortSignal;
  /**
   * Extra request headers for this call only (e.g. `Prefer` for a Prism mock).
   * @defaultValue none
   */
  headers?: Record<string, string>;
  /**
   * Idempotency-Key sent on every attempt of this call (1 to 255 characters), so a retry after a lost
   * answer cannot resume twice and reads as `resumed` (x-decisions: idempotency-key). Pass your own to retry across calls.
   * @defaultValue a new `crypto.randomUUID()` per call
   */
  idempotencyKey?: string;
}

/** The client: `resume` for the outcome, `raw` for the typed openapi-fetch client underneath. */
export interface SessionsClient {
  /**
   * Resolves to an outcome for every answer the service gives; throws SessionsClientError only when
   * no answer arrives, TypeError for an empty session id or "." / "..".
   */
  resume(sessionId: string, options?: ResumeOptions): Promise<ResumeOutcome>;
  /** The openapi-fetch client (same base URL, key, timeouts and retries), for typed raw calls. */
  raw: Client<paths>;
}

function checkNumber(name: string, value: number | undefined, fallback: number, min: number, max: number, integer = false): number {
  if (value === undefined) return fallback;
  if (integer) {
    checkInteger(`createSessionsClient: ${name}`, value, { min, max });
  } else if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new OptionsError(`createSessionsClient: ${name} must be a number from ${min} to ${max}, got ${String(value)}.`, { option: name });
  }
  return value;
}

function checkBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== 'string' || !baseUrl) {
    throw new OptionsError('createSessionsClient: baseUrl is required, e.g. "https://api.example.com".');
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new OptionsError(`createSessionsClient: baseUrl "${baseUrl}" is not an absolute URL; give e.g. "https://api.example.com".`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new OptionsError(`createSessionsClient: baseUrl must use https:// (or http:// for local testing), got "${url.protocol}".`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new OptionsError('createSessionsClient: baseUrl must not carry a query, fragment or credentials; pass the key as apiKey.');
  }
  const path = url.pathname.replace(/\/+$/, '');
  // Source spec §4: the path is {base_url}/v1/...; the client adds /v1 itself.
  if (/\/v1$/.test(path)) {
    throw new OptionsError(`createSessionsClient: baseUrl "${baseUrl}" ends with /v1; leave it out, the client adds it.`);
  }
  return `${url.origin}${path}`;
}

function checkApiKey(apiKey: unknown): string {
  if (typeof apiKey !== 'string' || !apiKey.trim()) {
    throw new OptionsError('createSessionsClient: apiKey is required (the key sent as Authorization: Bearer <apiKey>).');
  }
  // Looser than RFC 6750's b64token: the service's key format is not shown (source spec), so only
  // what could never be meant (whitespace, control, non-ASCII: a bad copy) is refused.
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new OptionsError('createSessionsClient: apiKey contains whitespace, control or non-ASCII characters; check how it was copied.');
  }
  return apiKey;
}

/**
 * Creates a client; throws `OptionsError` (a TypeError) naming the option to fix when an option is invalid.
 * @example
 * const client = createSessionsClient({ baseUrl: 'https://api.example.com', apiKey: process.env.API_KEY! });
 * const outcome = await client.resume('sess_123');
 * if (outcome.kind === 'resumed') console.log(outcome.result.message);
 */
export function createSessionsClient(options: SessionsClientOptions): SessionsClient {
  if (typeof options !== 'object' || options === null) {
    throw new OptionsError('createSessionsClient: pass an options object { baseUrl, apiKey }.');
  }
  const baseUrl = checkBaseUrl(options.baseUrl);
  const apiKey = checkApiKey(options.apiKey);
  const timeoutMs = checkNumber('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS, 1, 2 ** 31 - 1);
  const maxRetries = checkNumber('maxRetries', options.maxRetries, DEFAULT_MAX_RETRIES, 0, 10, true);
  const maxRetryDelayMs = checkNumber('maxRetryDelayMs', options.maxRetryDelayMs, DEFAULT_MAX_RETRY_DELAY_MS, 0, 2 ** 31 - 1);
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    throw new OptionsError('createSessionsClient: fetch must be a function (input: Request, init?) => Promise<Response>.');
  }
  const retrying = createRetryingFetch({ fetch: baseFetch(options.fetch), timeoutMs, maxRetries, maxRetryDelayMs });
  const inBrowser = typeof (globalThis as { document?: unknown }).document !== 'undefined';
  const userAgent = options.userAgent ?? (inBrowser ? undefined : `session-resume-api/${PACKAGE_VERSION}`);
  const headers: Record<string, string> = { Authorization: `Bearer ${apiKey}`, ...(userAgent ? { 'User-Agent': userAgent } : {}) };
  const raw = createClient<paths>({ baseUrl, fetch: (request) => retrying(request).then(replayable), headers });

  async function resume(sessionId: string, callOptions: ResumeOptions = {}): Promise<ResumeOutcome> {
    const idempotencyKey = checkResumeArguments(sessionId, callOptions);
    // One Request per call whose headers every attempt re-sends, so one Idempotency-Key covers them
    // all; this `fetch` carries the caller's signal and keeps the body text as received.
    let answer: BufferedAnswer | undefined;
    const { response } = await raw.POST(RESUME_PATH, {
      params: { path: { session_id: sessionId } },
      // Later names win case-insensitively: the call's key over any Idempotency-Key in `headers`.
      headers: { ...callOptions.headers, 'Idempotency-Key': idempotencyKey },
      // 'stream' leaves a 2xx body unread; openapi-fetch reads every other, so those get a replayable Response.
      parseAs: 'stream',
      fetch: async (request: Request) => {
        answer = await retrying(request, { signal: callOptions.signal });
        return answer.response.ok ? answer.response : replayable(answer);
      },
    });
    return toResumeOutcome({ sessionId, status: response.status, headers: response.headers, text: answer!.text, attempts: answer!.attempts });
  }

  return { resume, raw };
}

/**
 * Through a closure: a detached window.fetch throws "Illegal invocation". A caller's fetch also gets
 * the attempt's signal inside the Request, in case it drops `init`.
 */
function baseFetch(userFetch: SessionsClientOptions['fetch']): FetchLike {
  return userFetch
    ? (request, init) => userFetch(init?.signal ? new Request(request, { signal: init.signal }) : request, init)
    : (request, init) => globalThis.fetch(request, init);
}

function checkResumeArguments(sessionId: string, callOptions: ResumeOptions): string {
  if (typeof sessionId !== 'string' || sessionId === '') {
    throw new TypeError('resume: sessionId must be a non-empty string.');
  }
  // URL parsers remove "." and ".." segments even percent-encoded, so such an id never reaches the server.
  if (sessionId === '.' || sessionId === '..') {
    throw new TypeError(`resume: sessionId "${sessionId}" cannot be sent as a URL path segment.`);
  }
  const idempotencyKey = callOptions.idempotencyKey ?? globalThis.crypto.randomUUID();
  if (typeof idempotencyKey !== 'string' || idempotencyKey.length < 1 || idempotencyKey.length > 255) {
    throw new TypeError('resume: idempotencyKey must be a string of 1 to 255 characters.');
  }
  return idempotencyKey;
}
