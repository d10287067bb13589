/**
 * The framework-free core of the webhook receiver: validate, record durably,
 * answer, process later. `receiver.handler` (node-handler.ts) is a thin adapter over it.
 */
import { readEventTolerantly, type ReceivedEvent } from './tolerant-event.js';
import { errorResult, type ReceiveResult } from './answers.js';
import { dedupeKey, eventNameOf, sessionIdOf, type JsonObject } from '@session-resume-api/runtime/event-identity';
import { createNodeHandler, type NodeHandler } from './node-handler.js';
import { StoreUnavailableError, type DeadLetter, type ReceiverStore, type RecordedEvent } from './store.js';
import { MIN_URL_TOKEN_LENGTH } from './url-token.js';
import { checkInteger, OptionsError } from '@session-resume-api/runtime/options-error';
import { isProbeEvent } from '@session-resume-api/runtime/webhook-probe';
import { createSignatureVerifier, SIGNATURE_TOLERANCE_SECONDS, type WebhookHeaders } from './verify-signature.js';
import type { MetricsRegistry } from './metrics-registry.js';
import { createReceiverMetrics, isRegistry } from './receiver-metrics.js';

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
}

/** A pino-compatible subset; every method optional in use. */
export interface ReceiverLogger {
  info?(obj: object, msg?: string): void;
  warn?(obj: object, msg?: string): void;
  error?(obj: object, msg?: string): void;
}

/** Options of `createWebhookReceiver`; checked at creation. */
export interface WebhookReceiverOptions {
  /** Where events are recorded: `createMemoryEventStore()` (one process) or `createRedisEventStore()` from `session-resume-api/webhooks/redis` (shared). */
  store: ReceiverStore;
  /** Processes one event after it was acknowledged; throw to have it retried. */
  onEvent(event: ReceivedEvent, context: EventContext): unknown;
  /**
   * Seconds a processed-event record is kept for dedupe (default `DEFAULT_DEDUPE_WINDOW_SECONDS`,
   * 3600: about an hour). With a `secret`, at least `SIGNATURE_TOLERANCE_SECONDS` (300): a
   * signed delivery replayed while its timestamp is still accepted must still be a duplicate.
   */
  dedupeWindowSeconds?: number;
  /** Processing attempts per event before it is dead-lettered (default `DEFAULT_MAX_ATTEMPTS`, 5). */
  maxAttempts?: number;
  /** Delay before the first retry in ms, doubled on each further retry (default `DEFAULT_RETRY_DELAY_MS`, 1000). */
  retryDelayMs?: number;
  /** Called after each failed processing attempt; `final` means the event was dead-lettered. */
  onError?(error: unknown, context: EventContext & { event: ReceivedEvent; final: boolean }): void;
  /** Logger for store outages and failed attempts (default: none). */
  logger?: ReceiverLogger;
  /**
   * Secret last path segment the webhook URL must end with (x-decisions: webhook-signing);
   * at least 22 characters, e.g. from `generateUrlToken()`. A wrong or missing token → 404.
   */
  urlToken?: string;
  /**
   * Standard Webhooks secret(s), `whsec_` + base64 (default: none, deliveries are not
   * verified). Several for rotation: a delivery signed with any of them passes. With a
   * secret, a missing or wrong `webhook-signature`, or a `webhook-timestamp` more than
   * 5 minutes from this clock, gets 401 and nothing is recorded. Verification needs the raw
   * body: no `express.json()` before the handler (`express.raw()` or none).
   */
  secret?: string | readonly string[];
  /** Largest accepted body in bytes (default `DEFAULT_MAX_BODY_BYTES`, 1 MiB); larger → 413. */
  maxBodyBytes?: number;
  /**
   * A prom-client `Registry` to count in (default: none, prom-client never loaded):
   * `session_resume_receiver_events_total{result}` (new, duplicate, invalid, unauthorized,
   * unavailable) and `session_resume_receiver_handler_runs_total{result}` (ok, failed).
   * prom-client is an optional peer dependency: install it to use this.
   */
  metrics?: MetricsRegistry;
}

/** A webhook receiver: the core, its Node/express handler, dead-letter tools and close. */
export interface WebhookReceiver {
  /**
   * Verifies (with a `secret`), validates, records (durably, before resolving) and queues one
   * delivery; `headers` are the request's, lower-case names. Never throws.
   */
  receive(rawBody: string | Uint8Array, headers?: WebhookHeaders): Promise<ReceiveResult>;
  /** `http.createServer(receiver.handler)` or an express route handler (with or without a body parser). */
  handler: NodeHandler;
  /** Events whose processing failed `maxAttempts` times. */
  deadLetters(): Promise<DeadLetter[]>;
  /** Processes a dead letter again; false when `id` is not dead-lettered. */
  retryDeadLetter(id: string): Promise<boolean>;
  /** Stops processing after the attempts under way finish, and closes the store. */
  close(): Promise<void>;
}

/** Default seconds a received event is remembered for dedupe (the suggested window: about an hour). */
export const DEFAULT_DEDUPE_WINDOW_SECONDS = 3600;
/** Default processing attempts before an event is dead-lettered. */
export const DEFAULT_MAX_ATTEMPTS = 5;
/** Default delay before the first retry, ms (doubled on each further retry). */
export const DEFAULT_RETRY_DELAY_MS = 1000;
/** Default largest accepted body, bytes (1 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Longest `webhook-id` used for dedupe; a longer one is not an id a sender would make. */
const MAX_WEBHOOK_ID_LENGTH = 256;

/** The sender's `webhook-id` (Standard Webhooks), when there is one of a sane length. */
function webhookIdOf(headers: WebhookHeaders): string | undefined {
  const id = headers['webhook-id'];
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_WEBHOOK_ID_LENGTH ? id : undefined;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new OptionsError(`createWebhookReceiver: ${message}`);
}

/**
 * Creates a webhook receiver over `store`. Throws `OptionsError` (a TypeError) for a bad option.
 *
 * @param options - `store` and `onEvent` are required
 * @param [options.dedupeWindowSeconds=3600] - seconds a received event is remembered
 * @param [options.maxAttempts=5] - processing attempts before a dead letter
 * @param [options.retryDelayMs=1000] - first retry delay, doubled on each further retry
 * @param [options.maxBodyBytes=1048576] - largest accepted body
 * @example
 * import { createServer } from 'node:http';
 * import { createMemoryEventStore, createWebhookReceiver } from 'session-resume-api/webhooks';
 * const receiver = createWebhookReceiver({
 *   store: createMemoryEventStore(),
 *   onEvent: async (event, { attempt }) => console.log(event.event, event.session?.id, attempt),
 * });
 * createServer(receiver.handler).listen(3001);
 */
export function createWebhookReceiver(options: WebhookReceiverOptions): WebhookReceiver {
  const {
    store,
    onEvent,
    dedupeWindowSeconds = DEFAULT_DEDUPE_WINDOW_SECONDS,
    maxAttempts = DEFAULT_MAX_ATTEMPTS,
    retryDelayMs = DEFAULT_RETRY_DELAY_MS,
    logger,
    urlToken,
    maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
    secret,
  } = options ?? ({} as WebhookReceiverOptions);
  check(typeof store?.record === 'function' && typeof store.start === 'function', 'store must be a ReceiverStore (createMemoryEventStore() or createRedisEventStore())');
  check(typeof onEvent === 'function', 'onEvent must be a function');
  check(Number.isFinite(dedupeWindowSeconds) && dedupeWindowSeconds > 0, 'dedupeWindowSeconds must be a positive number of seconds');
  checkInteger('createWebhookReceiver: maxAttempts', maxAttempts, { min: 1 });
  check(Number.isFinite(retryDelayMs) && retryDelayMs >= 0, 'retryDelayMs must be a number of milliseconds ≥ 0');
  checkInteger('createWebhookReceiver: maxBodyBytes', maxBodyBytes, { min: 1 });
  check(
    urlToken === undefined || (typeof urlToken === 'string' && urlToken.length >= MIN_URL_TOKEN_LENGTH && !/[/?#]/.test(urlToken)),
    `urlToken must be a string of at least ${MIN_URL_TOKEN_LENGTH} characters without / ? # (use generateUrlToken())`,
  );
  check(options.onError === undefined || typeof options.onError === 'function', 'onError must be a function');
  check(options.metrics === undefined || isRegistry(options.metrics), 'metrics must be a prom-client Registry (new Registry() or its default register)');
  const verify = secret === undefined ? undefined : createSignatureVerifier(secret);
  if (verify && dedupeWindowSeconds < SIGNATURE_TOLERANCE_SECONDS) {
    // A captured signed delivery sent again after the window but within the tolerance would
    // pass verification and run the handler twice.
    throw new OptionsError(
      `createWebhookReceiver: dedupeWindowSeconds is ${dedupeWindowSeconds}, shorter than the ${SIGNATURE_TOLERANCE_SECONDS} s a signature stays valid, so a replayed signed delivery would be handled twice: set dedupeWindowSeconds to at least ${SIGNATURE_TOLERANCE_SECONDS} (default ${DEFAULT_DEDUPE_WINDOW_SECONDS}).`,
      { option: 'dedupeWindowSeconds' },
    );
  }
  const metrics = options.metrics && createReceiverMetrics(options.metrics, (err) => logger?.warn?.({ err }, 'prom-client could not be loaded: receiver metrics are off'));

  const context = (r: RecordedEvent): EventContext => {
    const eventName = eventNameOf(r.event);
    const sessionId = sessionIdOf(r.event);
    return { id: r.id, key: r.key, attempt: r.attempt, receivedAt: r.receivedAt, ...(eventName ? { eventName } : {}), ...(sessionId ? { sessionId } : {}) };
  };
  const onError =
    options.onError ??
    ((error: unknown, ctx: EventContext & { event: ReceivedEvent; final: boolean }) => {
      logger?.[ctx.final ? 'error' : 'warn']?.(
        { err: error, id: ctx.id, attempt: ctx.attempt, event: ctx.eventName, sessionId: ctx.sessionId },
        ctx.final ? 'webhook event dead-lettered' : 'webhook event processing failed; will retry',
      );
    });

  store.start({
    windowSeconds: dedupeWindowSeconds,
    maxAttempts,
    retryDelayMs,
    // §6 rule 2: slow work happens here, after the 200.
    process: async (recorded) => {
      try {
        await onEvent(recorded.event, context(recorded));
      } catch (error) {
        metrics?.handlerRan('failed');
        throw error;
      }
      metrics?.handlerRan('ok');
    },
    onStoreError: (error, what) => logger?.warn?.({ err: error }, what),
    onFailure: (error, recorded, final) => {
      try {
        onError(error, { ...context(recorded), event: recorded.event, final });
      } catch {
        // a throwing onError must not stop the queue
      }
    },
  });

  const decoder = new TextDecoder('utf-8', { fatal: true });

  async function receive(rawBody: string | Uint8Array, headers: WebhookHeaders = {}): Promise<ReceiveResult> {
    const size = typeof rawBody === 'string' ? Buffer.byteLength(rawBody) : rawBody.byteLength;
    if (size > maxBodyBytes) {
      return errorResult(413, 'payload_too_large', `The body has ${size} bytes; this receiver accepts at most ${maxBodyBytes}.`);
    }
    // Standard Webhooks: the signature is checked on the bytes as sent, before they are parsed.
    const verdict = verify?.(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8'), headers);
    if (verdict && !verdict.ok) return errorResult(401, 'unauthorized', verdict.message);
    const webhookId = webhookIdOf(headers);
    let value: unknown;
    try {
      value = JSON.parse(typeof rawBody === 'string' ? rawBody : decoder.decode(rawBody));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return errorResult(400, 'bad_request', `Invalid session event: the body is not UTF-8 JSON (${why}).`);
    }
    // The spec's ReceivedSessionEvent schema, compiled by Ajv 2020 from spec/openapi.yaml: the
    // nested and the flat form, any event kind, extra fields and any length pass
    // (x-decisions: event-payload-forms, event-kinds, event-field-bounds).
    const checked = readEventTolerantly(value);
    if (!checked.ok) return errorResult(400, 'bad_request', `Invalid session event: ${checked.message}.`);
    const { event } = checked;
    // The probe of `webhook check`: acknowledged after every check above, never recorded or handled.
    if (isProbeEvent(event)) return { status: 200, body: { received: true, duplicate: false, probe: true } };
    // Of the body as sent: the flat and the nested form of one event have one key.
    const key = dedupeKey(value as JsonObject);
    try {
      // §6 rules 2–4: recorded durably (shared store) before the 200; a duplicate is answered
      // 200 and not processed again.
      const { id, duplicate } = await store.record(key, event, webhookId);
      return { status: 200, body: { received: true, duplicate, id } };
    } catch (error) {
      // Never a 200 for an event that is not recorded: 503 makes the sender retry.
      logger?.error?.({ err: error, key }, 'webhook event could not be recorded; answered 503');
      const reason = error instanceof StoreUnavailableError ? error.message : 'the store failed';
      return errorResult(503, 'service_unavailable', `The event could not be recorded (${reason}); retry later.`);
    }
  }

  const counted = metrics
    ? async (rawBody: string | Uint8Array, headers?: WebhookHeaders) => {
        const result = await receive(rawBody, headers);
        metrics.answered(result);
        return result;
      }
    : receive;
  let closing: Promise<void> | undefined;
  return {
    receive: counted,
    handler: createNodeHandler({ receive: counted, urlToken, maxBodyBytes }),
    deadLetters: () => store.deadLetters(),
    retryDeadLetter: (id) => store.retryDeadLetter(id),
    close: () => (closing ??= store.close()),
  };
}
