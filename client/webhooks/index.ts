/**
 * session-resume-api/webhooks: receive session events — verify (when a secret is set),
 * validate against the spec, record durably with dedupe, answer 200 fast, process at least
 * once. This subpath loads no Redis library: the shared Redis store is
 * `session-resume-api/webhooks/redis`.
 */
export { createWebhookReceiver } from './receiver.js';
export { DEFAULT_MAX_BODY_BYTES } from './receiver-options.js';
export type {
  EventContext,
  EventOrder,
  WebhookReceiver,
  WebhookReceiverAnyOrder,
  WebhookReceiverBaseOptions,
  WebhookReceiverOptions,
  WebhookReceiverSessionOrder,
} from './receiver-options.js';
export type { ReceiverLogger } from './receiver-logger.js';
export type { FetchHandler } from './web-handler.js';
export type { AfterAnswer } from './after-answer.js';
export type { HttpAnswer, ReadRequest } from './request-checks.js';
export type { ReceivedEvent } from './tolerant-event.js';
export type { ErrorStatus, ReceiveResult } from './answers.js';
export type { NodeHandler } from './node-handler.js';
export { createMemoryEventStore } from './memory-event-store.js';
export type { MemoryEventStoreOptions } from './memory-event-store.js';
export { OptionsError } from '@session-resume-api/runtime/options-error';
export type { OptionsErrorOptions } from '@session-resume-api/runtime/options-error';
export type { StoreUnavailableErrorOptions } from '@session-resume-api/runtime/store-unavailable-error';
export { StoreUnavailableError } from './store.js';
export type {
  DeadLetter,
  HandlerRun,
  OrderedReceiverStore,
  OrderPoint,
  ProcessingOptions,
  ReceiverStore,
  RecordOutcome,
  RecordedEvent,
  SessionPosition,
} from './store.js';
export { canonicalJson, dedupeKey, eventNameOf, sessionIdOf } from '@session-resume-api/runtime/event-identity';
export type { JsonObject } from '@session-resume-api/runtime/event-identity';
export type { HandlerRunResult, ReceiverEventResult, ReceiverMetrics } from './receiver-metrics.js';
export { generateUrlToken } from './url-token.js';
export { createSignatureVerifier } from './verify-signature.js';
export type { SignatureVerdict, SignatureVerifier, WebhookHeaders } from './verify-signature.js';
export { createProbeEvent } from '@session-resume-api/runtime/webhook-probe';
export type { ApiComponents, ApiOperations, ApiWebhooks, ErrorBody, SessionEvent, WebhookAck } from '@session-resume-api/runtime/types';
export type { TraceContext } from '@session-resume-api/runtime/trace-context';
export type { OpenTelemetryApi, SpanAttributes } from '@session-resume-api/runtime/tracing';
