/** Wire types read off the generated OpenAPI types; type-only, so browser code may import it. */
import type { ApiComponents as components, ApiPaths as paths, ApiWebhooks as webhooks } from 'session-resume-api-types';

/**
 * The generated types of spec/openapi.yaml, from their own package (session-resume-api-types):
 * the wire types below read them, and the client's `raw` is typed by `ApiPaths`, so an entry
 * whose signatures reach them re-exports them, and its API report names them without listing them.
 */
export type { ApiComponents, ApiOperations, ApiPaths, ApiWebhooks } from 'session-resume-api-types';

/** Names of the component schemas in spec/openapi.yaml. */
export type SchemaName = keyof components['schemas'];

/** Body of a 200 answer to resume. */
export type ResumeResult = paths['/v1/sessions/{session_id}/resume']['post']['responses']['200']['content']['application/json'];

/** Body of every non-2xx answer (x-decisions: error-body). */
export type ErrorBody = components['schemas']['Error'];

/** Payload the service POSTs to a webhook URL, read from `webhooks.sessionEvent`. */
export type SessionEvent = NonNullable<webhooks['sessionEvent']['post']['requestBody']>['content']['application/json'];

/** What the reference server POSTs to the operator when the webhook endpoint's circuit changes state. */
export type EndpointNotice = components['schemas']['EndpointNotice'];

/** Body of the receiver kit's 200 answer to a webhook delivery. */
export type WebhookAck = components['schemas']['WebhookAck'];
