/** Wire types read off the generated OpenAPI types; type-only, so browser code may import it. */
import type { components, paths, webhooks } from '../generated/api.js';

/**
 * The generated types of spec/openapi.yaml under names that say whose they are: the wire types
 * below read them, and the client's `raw` is typed by `ApiPaths`, so an entry whose signatures
 * reach them exports them too.
 */
export type { components as ApiComponents, operations as ApiOperations, paths as ApiPaths, webhooks as ApiWebhooks } from '../generated/api.js';

/** Names of the component schemas in spec/openapi.yaml. */
export type SchemaName = keyof components['schemas'];

/** Body of a 200 answer to resume. */
export type ResumeResult =
  paths['/v1/sessions/{session_id}/resume']['post']['responses']['200']['content']['application/json'];

/** Body of every non-2xx answer (x-decisions: error-body). */
export type ErrorBody = components['schemas']['Error'];

/** Payload the service POSTs to a webhook URL, read from `webhooks.sessionEvent`. */
export type SessionEvent = NonNullable<
  webhooks['sessionEvent']['post']['requestBody']
>['content']['application/json'];

/** What the reference server POSTs to the operator when the webhook endpoint's circuit changes state. */
export type EndpointNotice = components['schemas']['EndpointNotice'];

/** Body of the receiver kit's 200 answer to a webhook delivery. */
export type WebhookAck = components['schemas']['WebhookAck'];
