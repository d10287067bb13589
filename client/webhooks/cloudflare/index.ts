/**
 * session-resume-api/webhooks/cloudflare: the receiver store for Cloudflare Workers. Records
 * live in a Durable Object (`WebhookStoreObject`, exported for your Worker and bound in
 * `wrangler.toml`), shared by every Worker instance; processing runs after the answer through
 * `receiver.fetch(request, ctx)`. Web-platform code only: no `cloudflare:` or Node import.
 */
export { createDurableObjectStore } from './durable-object-store.js';
export type { DurableObjectNamespaceLike, DurableObjectStoreOptions } from './durable-object-store.js';
export { WebhookStoreObject } from './store-object.js';
export type { DurableObjectStateLike, DurableObjectStorageLike, WebhookStoreObjectOptions } from './store-object.js';
// The store's types, so that what the factory returns can be named from this entry too.
export type {
  DeadLetter,
  HandlerRun,
  OrderedReceiverStore,
  ProcessingOptions,
  ReceiverStore,
  RecordOutcome,
  RecordedEvent,
  SessionPosition,
} from '../store.js';
export type { ReceivedEvent } from '../tolerant-event.js';
export type { TraceContext } from '@session-resume-api/runtime/trace-context';
export type { ApiComponents, ApiOperations, ApiWebhooks, SessionEvent } from '@session-resume-api/runtime/types';
