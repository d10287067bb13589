/**
 * session-resume-api/webhooks: receive session events (source spec §6) — validate against
 * the spec, record durably with dedupe, answer 200 fast, process at least once.
 */
export { createWebhookReceiver } from './receiver.js';
export type { EventContext, ReceiverLogger, WebhookReceiver, WebhookReceiverOptions } from './receiver.js';
export type { ErrorStatus, ReceiveResult } from './answers.js';
export type { NodeHandler } from './node-handler.js';
export { createMemoryStore } from './memory-store.js';
export type { MemoryStoreOptions } from './memory-store.js';
export { createRedisStore } from './redis-store.js';
export type { RedisStoreOptions } from './redis-store.js';
export { StoreUnavailableError } from './store.js';
export type { DeadLetter, ProcessingOptions, ReceiverStore, RecordOutcome, RecordedEvent } from './store.js';
export { dedupeKey } from '../../spec/event-identity.js';
export { generateUrlToken } from './url-token.js';
export type { SessionEvent, WebhookAck } from '../../spec/types.js';
export { deliverEvent, DELIVERY_TIMEOUT_MS } from '../../spec/delivery/deliver-event.js';
export type { DeliverEventOptions, DeliveryFailureReason, DeliveryResult } from '../../spec/delivery/deliver-event.js';
