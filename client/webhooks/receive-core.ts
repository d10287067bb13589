/** The framework-free receiver core: bytes and headers in, an answer out after a durable record. Web-platform APIs only. */
import { dedupeKey, type JsonObject } from '@session-resume-api/runtime/event-identity';
import { readTraceContext } from '@session-resume-api/runtime/trace-context';
import { isProbeEvent } from '@session-resume-api/runtime/webhook-probe';
import { checkAfterAnswer, type AfterAnswer } from './after-answer.js';
import { errorResult, type ReceiveResult } from './answers.js';
import type { ReceiverLogger } from './receiver-logger.js';
import { StoreUnavailableError, type ReceiverStore } from './store.js';
import { readEventTolerantly } from './tolerant-event.js';
import type { SignatureVerifier } from './verify-signature.js';
import { headerValue, type WebhookHeaders } from './webhook-headers.js';

/** Longest `webhook-id` used for dedupe; a longer one is not an id a sender would make. */
const MAX_WEBHOOK_ID_LENGTH = 256;

/** What the core needs. */
export interface CoreOptions {
  store: ReceiverStore;
  verify: SignatureVerifier | undefined;
  maxBodyBytes: number;
  logger: ReceiverLogger | undefined;
  /** Whether the runtime stops a request's work at its answer: then, without `waitUntil`, the answer waits for the processing. */
  holdAnswer: boolean;
}

/** Bytes of the UTF-8 encoding of `text`, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2;
        i++;
        continue;
      }
    }
    if (code > 0x7ff) bytes += 2;
    else if (code > 0x7f) bytes += 1;
  }
  return bytes;
}

const strict = new TextDecoder('utf-8', { fatal: true });
const lossy = new TextDecoder('utf-8');

/** The body as text; `undefined` when its bytes are not UTF-8. */
function textOf(rawBody: string | Uint8Array): string | undefined {
  if (typeof rawBody === 'string') return rawBody;
  try {
    return strict.decode(rawBody);
  } catch {
    return undefined;
  }
}

/** The sender's `webhook-id` (or `svix-id`), when there is one of a sane length. */
function webhookIdOf(headers: WebhookHeaders): string | undefined {
  const id = headerValue(headers, 'webhook-id') ?? headerValue(headers, 'svix-id');
  return id !== undefined && id.length > 0 && id.length <= MAX_WEBHOOK_ID_LENGTH ? id : undefined;
}

/** Records a checked event; a store failure is a 503, so the sender retries. */
async function recordEvent(
  coreOptions: CoreOptions,
  value: JsonObject,
  event: Parameters<ReceiverStore['record']>[1],
  headers: WebhookHeaders,
  context: AfterAnswer | undefined,
): Promise<ReceiveResult> {
  // Of the body as sent: the flat and the nested form of one event have one key.
  const key = dedupeKey(value);
  try {
    // §6 rules 2–4: recorded durably before the 200; a duplicate is answered 200, not processed again.
    const trace = readTraceContext(headerValue(headers, 'traceparent'), headerValue(headers, 'tracestate'));
    const { id, duplicate, processing } = await coreOptions.store.record(key, event, webhookIdOf(headers), trace);
    if (processing) {
      // Never a 200 whose event is dropped with the request: the platform keeps processing alive, or the answer waits.
      if (context) context.waitUntil(processing);
      else if (coreOptions.holdAnswer) await processing;
    }
    return { status: 200, body: { received: true, duplicate, id } };
  } catch (error) {
    // Never a 200 for an event that is not recorded: 503 makes the sender retry.
    coreOptions.logger?.error?.({ err: error, key }, 'webhook event could not be recorded; answered 503');
    const reason = error instanceof StoreUnavailableError ? error.message : 'the store failed';
    return errorResult(503, 'service_unavailable', `The event could not be recorded (${reason}); retry later.`);
  }
}

/** `receive(rawBody, headers, context)`: size, signature, JSON, schema, probe, record. Throws only for a `context` without `waitUntil`. */
export function createReceive(coreOptions: CoreOptions) {
  return async function receive(rawBody: string | Uint8Array, headers: WebhookHeaders = {}, context?: AfterAnswer): Promise<ReceiveResult> {
    checkAfterAnswer(context);
    const size = typeof rawBody === 'string' ? utf8Length(rawBody) : rawBody.byteLength;
    if (size > coreOptions.maxBodyBytes) {
      return errorResult(413, 'payload_too_large', `The body has ${size} bytes; this receiver accepts at most ${coreOptions.maxBodyBytes}.`);
    }
    const text = textOf(rawBody);
    // Standard Webhooks: the signature is checked on the bytes as sent, before they are parsed.
    const verdict = coreOptions.verify?.(text ?? lossy.decode(rawBody as Uint8Array), headers);
    if (verdict && !verdict.ok) return errorResult(401, 'unauthorized', verdict.message);
    if (text === undefined) return errorResult(400, 'bad_request', 'Invalid session event: the body is not UTF-8 JSON (its bytes are not valid UTF-8).');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return errorResult(400, 'bad_request', `Invalid session event: the body is not UTF-8 JSON (${error instanceof Error ? error.message : String(error)}).`);
    }
    // ReceivedSessionEvent (x-decisions: event-payload-forms, event-kinds, event-field-bounds): both forms, any kind and length.
    const checked = readEventTolerantly(value);
    if (!checked.ok) return errorResult(400, 'bad_request', `Invalid session event: ${checked.message}.`);
    // The probe of `webhook check`: acknowledged after every check above, never recorded or handled.
    if (isProbeEvent(checked.event)) return { status: 200, body: { received: true, duplicate: false, probe: true } };
    return recordEvent(coreOptions, value as JsonObject, checked.event, headers, context);
  };
}
