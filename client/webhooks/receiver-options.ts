/**
 * The options and the public shape of a webhook receiver, their defaults and their checks:
 * written once, read by `createWebhookReceiver` and its parts.
 */
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { checkInteger, OptionsError } from '@session-resume-api/runtime/options-error';
import type { AfterAnswer } from './after-answer.js';
import type { ReceiveResult } from './answers.js';
import type { HttpAnswer, ReadRequest } from './request-checks.js';
import type { NodeHandler } from './node-handler.js';
import type { TraceContext } from '@session-resume-api/runtime/trace-context';
import type { OpenTelemetryApi } from '@session-resume-api/runtime/tracing';
import { isReceiverMetrics, type ReceiverMetrics } from './receiver-metrics.js';
import type { DeadLetter, ReceiverStore } from './store.js';
import type { ReceivedEvent } from './tolerant-event.js';
import { MIN_URL_TOKEN_LENGTH } from './url-token.js';
import { SIGNATURE_TOLERANCE_SECONDS } from './verify-signature.js';
import type { WebhookHeaders } from './webhook-headers.js';

/** What `onEvent` gets besides the event. */
export interface EventContext {
  /** Store id of the recording. */
  id: string;
  /** The dedupe key (sha256 hex, `dedupeKey`). */
  key: string;
  /** 1 on the first attempt, then 2, 3, ... on retries. */
  attempt: number;
  /** When the event was recorded, epoch milliseconds. */
  receivedAt: number;
  /** The event name (`event`, else `status`), even where the event's own `event` field holds something else. */
  eventName?: string;
  /** The session id (`session.id`, else `session_id`), even where the event's `session` field is not an object. */
  sessionId?: string;
  /**
   * The delivery's W3C trace context (`traceparent`, and `tracestate` when sent), when it
   * carried a valid one: the sender's trace of the resume that made this event.
   */
  trace?: TraceContext;
}

/** A pino-compatible subset; every method optional in use. */
export interface ReceiverLogger {
  info?(obj: object, msg?: string): void;
  warn?(obj: object, msg?: string): void;
  error?(obj: object, msg?: string): void;
}

/** How events of one session reach `onEvent`: as they come, or never older after newer. */
export type EventOrder = 'any' | 'per-session';

/** Options of `createWebhookReceiver`; checked at creation. */
export interface WebhookReceiverOptions {
  /** Where events are recorded: `createMemoryEventStore()` (one process) or `createRedisEventStore()` from `session-resume-api/webhooks/redis` (shared). */
  store: ReceiverStore;
  /** Processes one event after it was acknowledged; throw to have it retried. */
  onEvent(event: ReceivedEvent, context: EventContext): unknown;
  /**
   * Seconds a processed-event record is kept for dedupe. With a `secret`, at least
   * `SIGNATURE_TOLERANCE_SECONDS`: a signed delivery replayed while its timestamp is
   * still accepted must still be a duplicate.
   * @defaultValue {@link DEFAULT_DEDUPE_WINDOW_SECONDS}
   */
  dedupeWindowSeconds?: number;
  /**
   * Processing attempts per event before it is dead-lettered.
   * @defaultValue {@link DEFAULT_MAX_ATTEMPTS} (5)
   */
  maxAttempts?: number;
  /**
   * Delay before the first retry in ms, doubled on each further retry.
   * @defaultValue {@link DEFAULT_RETRY_DELAY_MS} (1000)
   */
  retryDelayMs?: number;
  /**
   * Called after each failed processing attempt; `final` means the event was dead-lettered. Replaces the log line of a failed attempt.
   * @defaultValue none: each failed attempt is a line through `logger`
   */
  onError?(error: unknown, context: EventContext & { event: ReceivedEvent; final: boolean }): void;
  /**
   * Where failed attempts, dead letters, stale events and store outages are reported.
   * `false` reports nothing.
   * @defaultValue one line per report on stderr (`console.error`): what happened, event name,
   * session id, attempt and error message; never a payload or a secret
   */
  logger?: ReceiverLogger | false;
  /**
   * Secret last path segment the webhook URL must end with (x-decisions: webhook-signing);
   * at least 22 characters, e.g. from `generateUrlToken()`. A wrong or missing token → 404.
   * @defaultValue none: any path is accepted
   */
  urlToken?: string;
  /**
   * Standard Webhooks secret(s), `whsec_` + base64. Several for rotation: a delivery signed
   * with any of them passes. With a secret, a missing or wrong `webhook-signature` (or
   * `svix-signature`), or a timestamp more than 5 minutes from this clock, gets 401 and
   * nothing is recorded. Verification needs the raw body: no `express.json()` before the
   * handler (`express.raw()` or none).
   * @defaultValue none: deliveries are not verified
   */
  secret?: string | readonly string[];
  /**
   * Largest accepted body in bytes; larger → 413.
   * @defaultValue {@link DEFAULT_MAX_BODY_BYTES} (1 MiB)
   */
  maxBodyBytes?: number;
  /**
   * `'per-session'`: an event older than the newest one already processed for its session (by
   * its `timestamp`; equal timestamps by the order they were recorded) is acknowledged and
   * recorded but goes to `onStale` instead of `onEvent`, across every instance sharing the
   * store. An event without a session id or a readable timestamp is never judged older.
   * @defaultValue `'any'`: every event goes to `onEvent`, in whatever order it came
   */
  order?: EventOrder;
  /**
   * With `order: 'per-session'`, gets each stale event instead of `onEvent`; throw to have it
   * retried like a failed handler.
   * @defaultValue none: a stale event is counted (metrics) and logged, nothing else
   */
  onStale?(event: ReceivedEvent, context: EventContext): unknown;
  /**
   * Where answers and handler runs are counted: `createReceiverMetrics(registry)` of
   * `session-resume-api/webhooks/metrics` (prom-client counters; prom-client is an optional peer
   * dependency only that subpath imports), or any object with the same two methods.
   * @defaultValue none: nothing is counted
   */
  metrics?: ReceiverMetrics;
  /**
   * `@opentelemetry/api`, the module itself (`import * as opentelemetry from '@opentelemetry/api'`):
   * each run of `onEvent` gets a consumer span, child of the delivery's `traceparent` and
   * active while the handler runs. An optional peer dependency, never loaded by the package itself.
   * @defaultValue none: no spans; `context.trace` is given either way
   */
  opentelemetry?: OpenTelemetryApi;
}

/** A webhook receiver: the core, its Node and web adapters, dead-letter tools and close. */
export interface WebhookReceiver {
  /**
   * Verifies (with a `secret`), validates, records (durably, before resolving) and queues one
   * delivery. Never throws. `context` as for `fetch`.
   */
  receive(rawBody: string | Uint8Array, headers?: WebhookHeaders, context?: AfterAnswer): Promise<ReceiveResult>;
  /** `http.createServer(receiver.handler)` or an express route handler (with or without a body parser). */
  handler: NodeHandler;
  /**
   * The same receiver for a web `Request` (Hono, Next.js route handlers, Bun, Deno, Cloudflare
   * Workers): the same checks (method, URL token, size, signature, body) and answers as `handler`.
   * `context` is the platform's way to keep the processing alive after the answer: Workers'
   * `ctx`, Vercel's `{ waitUntil }` (`@vercel/functions`), Next.js's `{ waitUntil: after }`.
   * Without one, on Workers and Vercel's edge runtime (which stop a request's work at its
   * answer) the answer waits until `onEvent` succeeded or the event was dead-lettered.
   * @defaultValue none: on Node, Bun and Deno the processing runs after the answer by itself
   */
  fetch(request: Request, context?: AfterAnswer): Promise<Response>;
  /**
   * The same receiver for a framework that reads the body itself (fastify with
   * `parseAs: 'buffer'`, koa, NestJS with `rawBody`): the same checks and answers as `handler`,
   * with the headers to send. Give the raw body, never a parsed object.
   */
  answer(request: ReadRequest, context?: AfterAnswer): Promise<HttpAnswer>;
  /** Events whose processing failed `maxAttempts` times. */
  deadLetters(): Promise<DeadLetter[]>;
  /** Processes a dead letter again; false when `id` is not dead-lettered. */
  retryDeadLetter(id: string): Promise<boolean>;
  /** Stops processing after the attempts under way finish, and closes the store. */
  close(): Promise<void>;
}

/** Default seconds a received event is remembered for dedupe: x-delivery-policy `dedupe.windowMs` (about an hour). */
export const DEFAULT_DEDUPE_WINDOW_SECONDS = WEBHOOK_DELIVERY_POLICY.dedupe.windowMs / 1000;
/** Default processing attempts before an event is dead-lettered. */
export const DEFAULT_MAX_ATTEMPTS = 5;
/** Default delay before the first retry, ms (doubled on each further retry). */
export const DEFAULT_RETRY_DELAY_MS = 1000;
/** Default largest accepted body, bytes (1 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The options with their defaults filled in. */
export type ResolvedReceiverOptions = WebhookReceiverOptions &
  Required<Pick<WebhookReceiverOptions, 'dedupeWindowSeconds' | 'maxAttempts' | 'retryDelayMs' | 'maxBodyBytes' | 'order'>>;

function check(condition: boolean, message: string): void {
  if (!condition) throw new OptionsError(`createWebhookReceiver: ${message}`);
}

/** Fills in the defaults and checks every option; throws `OptionsError` naming the option and its rule. */
export function resolveReceiverOptions(options: WebhookReceiverOptions): ResolvedReceiverOptions {
  const o: ResolvedReceiverOptions = {
    dedupeWindowSeconds: DEFAULT_DEDUPE_WINDOW_SECONDS,
    maxAttempts: DEFAULT_MAX_ATTEMPTS,
    retryDelayMs: DEFAULT_RETRY_DELAY_MS,
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    order: 'any',
    // An option given as undefined takes its default, as if left out.
    ...(Object.fromEntries(Object.entries(options ?? {}).filter(([, value]) => value !== undefined)) as WebhookReceiverOptions),
  };
  const { store, urlToken } = o;
  check(typeof store?.record === 'function' && typeof store.start === 'function', 'store must be a ReceiverStore (createMemoryEventStore() or createRedisEventStore())');
  check(typeof o.onEvent === 'function', 'onEvent must be a function');
  check(Number.isFinite(o.dedupeWindowSeconds) && o.dedupeWindowSeconds > 0, 'dedupeWindowSeconds must be a positive number of seconds');
  checkInteger('createWebhookReceiver: maxAttempts', o.maxAttempts, { min: 1 });
  check(Number.isFinite(o.retryDelayMs) && o.retryDelayMs >= 0, 'retryDelayMs must be a number of milliseconds ≥ 0');
  checkInteger('createWebhookReceiver: maxBodyBytes', o.maxBodyBytes, { min: 1 });
  check(
    urlToken === undefined || (typeof urlToken === 'string' && urlToken.length >= MIN_URL_TOKEN_LENGTH && !/[/?#]/.test(urlToken)),
    `urlToken must be a string of at least ${MIN_URL_TOKEN_LENGTH} characters without / ? # (use generateUrlToken())`,
  );
  check(o.onError === undefined || typeof o.onError === 'function', 'onError must be a function');
  check(o.onStale === undefined || typeof o.onStale === 'function', 'onStale must be a function');
  check(o.logger === undefined || o.logger === false || (typeof o.logger === 'object' && o.logger !== null), 'logger must be a logger object (pino-compatible) or false');
  check(o.order === 'any' || o.order === 'per-session', `order must be 'any' or 'per-session' (got ${JSON.stringify(o.order)})`);
  check(o.order !== 'per-session' || typeof store.advanceSession === 'function', "order 'per-session' needs a store that keeps session order (createMemoryEventStore() or createRedisEventStore())");
  check(o.metrics === undefined || isReceiverMetrics(o.metrics), "metrics must be createReceiverMetrics(registry) of 'session-resume-api/webhooks/metrics' (or an object with answered() and handlerRan())");
  check(
    o.opentelemetry === undefined || (typeof o.opentelemetry?.trace?.getTracer === 'function' && typeof o.opentelemetry.context?.with === 'function'),
    "opentelemetry must be the @opentelemetry/api module (import * as opentelemetry from '@opentelemetry/api')",
  );
  if (o.secret !== undefined && o.dedupeWindowSeconds < SIGNATURE_TOLERANCE_SECONDS) {
    // A captured signed delivery sent again after the window but within the tolerance would
    // pass verification and run the handler twice.
    throw new OptionsError(
      `createWebhookReceiver: dedupeWindowSeconds is ${o.dedupeWindowSeconds}, shorter than the ${SIGNATURE_TOLERANCE_SECONDS} s a signature stays valid, so a replayed signed delivery would be handled twice: set dedupeWindowSeconds to at least ${SIGNATURE_TOLERANCE_SECONDS} (default ${DEFAULT_DEDUPE_WINDOW_SECONDS}).`,
      { option: 'dedupeWindowSeconds' },
    );
  }
  return o;
}
