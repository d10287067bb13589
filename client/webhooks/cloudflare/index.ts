/**
 * session-resume-api/webhooks/cloudflare: the receiver store for Cloudflare Workers. Records
 * live in a Durable Object (`WebhookStoreObject`, exported for your Worker and bound in
 * `wrangler.toml`), shared by every Worker instance; processing runs after the answer through
 * `receiver.fetch(request, ctx)`. Web-platform code only: no `cloudflare:` or Node import.
 */
export {
  createDurableObjectStore,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_LEASE_MS,
  DEFAULT_OBJECT_MAX_EVENTS,
  DEFAULT_OBJECT_NAME,
} from './durable-object-store.js';
export type { DurableObjectNamespaceLike, DurableObjectStoreOptions } from './durable-object-store.js';
export { WebhookStoreObject } from './store-object.js';
export type { DurableObjectStateLike, DurableObjectStorageLike } from './store-object.js';
