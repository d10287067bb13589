/** The receiver's options and public shape, their defaults and checks, written once. */
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { checkInteger, OptionsError } from '@session-resume-api/runtime/options-error';
import type { AfterAnswer } from './after-answer.js';
import type { ReceiveResult } from './answers.js';
import type { HttpAnswer, ReadRequest } from './request-checks.js';
import type { NodeHandler } from './node-handler.js';
import type { ReceiverLogger } from './receiver-logger.js';
import type { TraceContext } from '@session-resume-api/runtime/trace-context';
import type { OpenTelemetryApi } from '@session-resume-api/runtime/tracing';
import { isReceiverMetrics, type ReceiverMetrics } from './receiver-metrics.js';
import type { DeadLetter, OrderedReceiverStore, ReceiverStore } from './store.js';
import type { ReceivedEvent } from './tolerant-event.js';
import { MIN_URL_TOKEN_LENGTH } from './url-token.js';
import { SIGNATURE_TOLERANCE_SECONDS } from './verify-signature.js';
import type { WebhookHeaders } from './webhook-headers.js';

/** What `onEvent` gets besides the event. */
export interface EventContext {
  /** Store id of the recording. */
  id: string;
  /** sha256 hex (`dedupeKey`). */
  key: string;
  /** 1, then 2, 3, ... on retries. */
  attempt: number;
  /** Epoch ms. */
  receivedAt: number;
  /** `event`, else `status`, even where the event's own `event` field holds something else. */
  eventName?: string;
  /** `session.id`, else `session_id`, even where `session` is not an object. */
  sessionId?: string;
  /** The delivery's valid W3C trace context: the sender's trace of the resume that made this event. */
  trace?: TraceContext;
}

/** How events of one session reach `onEvent`: as they come, or never older after newer. */
export type EventOrder = 'any' | 'per-session';

/**
 * Options of `createWebhookReceiver`; checked at creation. `order: 'per-session'` needs a store
 * that keeps session order (`OrderedReceiverStore`): with another store it does not type-check,
 * and is refused with `OptionsError` at run time.
 */
export type WebhookReceiverOptions = WebhookReceiverBaseOptions & (WebhookReceiverAnyOrder | WebhookReceiverSessionOrder);

/** Events reach `onEvent` in whatever order they came; any store. */
export interface WebhookReceiverAnyOrder {
  /** Where events are recorded: `createMemoryEventStore()` (one process) or `createRedisEventStore()` from `session-resume-api/webhooks/redis` (shared). */
  store: ReceiverStore;
  /**
   * How events of one session reach `onEvent`.
   * @defaultValue `'any'`: every event goes to `onEvent`, in whatever order it came
   */
  order?: 'any';
}

/** Never an older event of a session after a newer one; a store that keeps session order. */
export interface WebhookReceiverSessionOrder {
  /** Where events are recorded and the order of each session kept: `createMemoryEventStore()`, `createRedisEventStore()` or `createDurableObjectStore()`. */
  store: OrderedReceiverStore;
  /**
   * `'per-session'`: an event older than its session's newest processed one (by `timestamp`, ties
   * by recording order) is acknowledged but goes to `onStale`, across every instance sharing the
   * store. Without a session id or readable timestamp it is never older.
   */
  order: 'per-session';
}

/** The options of `createWebhookReceiver` whatever its order. */
export interface WebhookReceiverBaseOptions {
  /** Processes one event after it was acknowledged; throw to have it retried. */
  onEvent(event: ReceivedEvent, context: EventContext): unknown;
  /**
   * Seconds a processed-event record is kept for dedupe; with a `secret`, at least
   * `SIGNATURE_TOLERANCE_SECONDS`, so a replayed signed delivery is still a duplicate.
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
   * Called after each failed processing attempt (`final`: dead-lettered), in place of the log line.
   * @defaultValue none: each failed attempt is a line through `logger`
   */
  onError?(error: unknown, context: EventContext & { event: ReceivedEvent; final: boolean }): void;
  /**
   * Where failed attempts, dead letters, stale events and store outages are reported; `false`: nowhere.
   * @defaultValue a line on stderr per report, never a payload or a secret
   */
  logger?: ReceiverLogger | false;
  /**
   * Secret last path segment of the webhook URL (x-decisions: webhook-signing), at least 22
   * characters (`generateUrlToken()`); wrong or missing → 404.
   * @defaultValue none: any path is accepted
   */
  urlToken?: string;
  /**
   * Standard Webhooks secret(s), `whsec_` + base64; several for rotation. A missing or wrong
   * signature, or a timestamp over 5 minutes off, gets 401 and nothing is recorded. Needs the raw
   * body: no `express.json()` before the handler.
   * @defaultValue none: deliveries are not verified
   */
  secret?: string | readonly string[];
  /**
   * Largest accepted body in bytes; larger → 413.
   * @defaultValue {@link DEFAULT_MAX_BODY_BYTES} (1 MiB)
   */
  maxBodyBytes?: number;
  /**
   * With `order: 'per-session'`, gets each stale event instead of `onEvent`; throw to retry it.
   * @defaultValue none: a stale event is counted (metrics) and logged, nothing else
   */
  onStale?(event: ReceivedEvent, context: EventContext): unknown;
  /**
   * Counts answers and handler runs: `createReceiverMetrics(registry)` of
   * `session-resume-api/webhooks/metrics` (prom-client, an optional peer), or the same two methods.
   * @defaultValue none: nothing is counted
   */
  metrics?: ReceiverMetrics;
  /**
   * `@opentelemetry/api` (the module, an optional peer): each `onEvent` run gets a consumer span,
   * child of the delivery's `traceparent`.
   * @defaultValue none: no spans; `context.trace` is given either way
   */
  opentelemetry?: OpenTelemetryApi;
}

/** A webhook receiver: the core, its Node and web adapters, dead-letter tools and close. */
export interface WebhookReceiver {
  /** Verifies, validates, records (durably, before resolving) and queues one delivery. Never throws. */
  receive(rawBody: string | Uint8Array, headers?: WebhookHeaders, context?: AfterAnswer): Promise<ReceiveResult>;
  /** `http.createServer(receiver.handler)` or an express route handler (with or without a body parser). */
  handler: NodeHandler;
  /**
   * The same receiver for a web `Request` (Hono, Next.js, Bun, Deno, Workers). `context` keeps the
   * processing alive after the answer (Workers' `ctx`, Vercel's `{ waitUntil }`, Next.js's
   * `{ waitUntil: after }`); without one on Workers and Vercel edge, the answer waits for `onEvent`.
   * @defaultValue none: on Node, Bun and Deno the processing runs after the answer by itself
   */
  fetch(request: Request, context?: AfterAnswer): Promise<Response>;
  /**
   * For a framework that reads the body itself (fastify `parseAs: 'buffer'`, koa, NestJS `rawBody`):
   * same checks and answers, with headers to send. Give the raw body, never a parsed object.
   */
  answer(request: ReadRequest, context?: AfterAnswer): Promise<HttpAnswer>;
  /** Events whose processing failed `maxAttempts` times. */
  deadLetters(): Promise<DeadLetter[]>;
  /** Processes a dead letter again; false when `id` is not dead-lettered. */
  retryDeadLetter(id: string): Promise<boolean>;
  /** Stops processing after the attempts under way finish, and closes the store. */
  close(): Promise<void>;
}

/** Default seconds a received event is remembered for dedupe: x-delivery-policy `dedupe.windowMs`, which covers every redelivery the sender can make. */
export const DEFAULT_DEDUPE_WINDOW_SECONDS = WEBHOOK_DELIVERY_POLICY.dedupe.windowMs / 1000;
/** Default processing attempts before dead-lettering. */
export const DEFAULT_MAX_ATTEMPTS = 5;
/** Default delay before the first retry, ms (then doubled). */
export const DEFAULT_RETRY_DELAY_MS = 1000;
/** Default largest accepted body, bytes. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The options with their defaults filled in. */
export type ResolvedReceiverOptions = WebhookReceiverOptions &
  Required<Pick<WebhookReceiverOptions, 'dedupeWindowSeconds' | 'maxAttempts' | 'retryDelayMs' | 'maxBodyBytes' | 'order'>>;

function check(condition: boolean, message: string): void {
  if (!condition) throw new OptionsError(`createWebhookReceiver: ${message}`);
}

/** Fills in the defaults and checks every option; throws `OptionsError` naming the option and its rule. */
export function resolveReceiverOptions(options: WebhookReceiverOptions): ResolvedReceiverOptions {
  const receiverOptions: ResolvedReceiverOptions = {
    dedupeWindowSeconds: DEFAULT_DEDUPE_WINDOW_SECONDS,
    maxAttempts: DEFAULT_MAX_ATTEMPTS,
    retryDelayMs: DEFAULT_RETRY_DELAY_MS,
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    order: 'any',
    ...(Object.fromEntries(Object.entries(options ?? {}).filter(([, value]) => value !== undefined)) as WebhookReceiverOptions),
  };
  const { store, urlToken } = receiverOptions;
  check(
    typeof store?.record === 'function' && typeof store.start === 'function',
    'store must be a ReceiverStore (createMemoryEventStore() or createRedisEventStore())',
  );
  check(typeof receiverOptions.onEvent === 'function', 'onEvent must be a function');
  check(
    Number.isFinite(receiverOptions.dedupeWindowSeconds) && receiverOptions.dedupeWindowSeconds > 0,
    'dedupeWindowSeconds must be a positive number of seconds',
  );
  checkInteger('createWebhookReceiver: maxAttempts', receiverOptions.maxAttempts, { min: 1 });
  check(Number.isFinite(receiverOptions.retryDelayMs) && receiverOptions.retryDelayMs >= 0, 'retryDelayMs must be a number of milliseconds ≥ 0');
  checkInteger('createWebhookReceiver: maxBodyBytes', receiverOptions.maxBodyBytes, { min: 1 });
  check(
    urlToken === undefined || (typeof urlToken === 'string' && urlToken.length >= MIN_URL_TOKEN_LENGTH && !/[/?#]/.test(urlToken)),
    `urlToken must be a string of at least ${MIN_URL_TOKEN_LENGTH} characters without / ? # (use generateUrlToken())`,
  );
  check(receiverOptions.onError === undefined || typeof receiverOptions.onError === 'function', 'onError must be a function');
  check(receiverOptions.onStale === undefined || typeof receiverOptions.onStale === 'function', 'onStale must be a function');
  check(
    receiverOptions.logger === undefined || receiverOptions.logger === false || (typeof receiverOptions.logger === 'object' && receiverOptions.logger !== null),
    'logger must be a logger object (pino-compatible) or false',
  );
  check(
    receiverOptions.order === 'any' || receiverOptions.order === 'per-session',
    `order must be 'any' or 'per-session' (got ${JSON.stringify(receiverOptions.order)})`,
  );
  check(
    receiverOptions.order !== 'per-session' || typeof store.advanceSession === 'function',
    "order 'per-session' needs a store that keeps session order (createMemoryEventStore() or createRedisEventStore())",
  );
  check(
    receiverOptions.metrics === undefined || isReceiverMetrics(receiverOptions.metrics),
    "metrics must be createReceiverMetrics(registry) of 'session-resume-api/webhooks/metrics' (or an object with answered() and handlerRan())",
  );
  check(
    receiverOptions.opentelemetry === undefined ||
      (typeof receiverOptions.opentelemetry?.trace?.getTracer === 'function' && typeof receiverOptions.opentelemetry.context?.with === 'function'),
    "opentelemetry must be the @opentelemetry/api module (import * as opentelemetry from '@opentelemetry/api')",
  );
  if (receiverOptions.secret !== undefined && receiverOptions.dedupeWindowSeconds < SIGNATURE_TOLERANCE_SECONDS) {
    // Otherwise a captured signed delivery re-sent after the window but within the tolerance runs twice.
    throw new OptionsError(
      `createWebhookReceiver: dedupeWindowSeconds is ${receiverOptions.dedupeWindowSeconds}, shorter than the ${SIGNATURE_TOLERANCE_SECONDS} s a signature stays valid, so a replayed signed delivery would be handled twice: set dedupeWindowSeconds to at least ${SIGNATURE_TOLERANCE_SECONDS} (default ${DEFAULT_DEDUPE_WINDOW_SECONDS}).`,
      { option: 'dedupeWindowSeconds' },
    );
  }
  return receiverOptions;
}
