/**
 * Standard Webhooks headers of one delivery attempt (x-decisions: webhook-standard-headers):
 * `webhook-id` (stable per event), `webhook-timestamp` (Unix seconds of the attempt) and, with
 * a secret, `webhook-signature` made by the `standardwebhooks` package (v1 = HMAC-SHA256 of
 * `id.timestamp.body`, base64).
 */
import { checkWebhookSecret } from '../webhook-secret.js';
import { Webhook } from 'standardwebhooks';

/** Builds the headers of one attempt for the exact body bytes sent. */
export type WebhookHeaders = (webhookId: string, body: string) => Record<string, string>;

/** Options of `createWebhookHeaders`. */
export interface WebhookHeadersOptions {
  /** Signing secret, `whsec_` + base64 (at least 24 bytes); undefined: unsigned deliveries. */
  secret?: string | undefined;
  /** Clock of `webhook-timestamp` (default `() => new Date()`). */
  now?: () => Date;
}

/**
 * Checks the secret once and returns the header builder.
 * @example
 * const headers = createWebhookHeaders({ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
 * headers('msg_1', '{"event":"session.resumed"}'); // { 'webhook-id', 'webhook-timestamp', 'webhook-signature' }
 */
export function createWebhookHeaders(options: WebhookHeadersOptions = {}): WebhookHeaders {
  const now = options.now ?? (() => new Date());
  let signer: Webhook | undefined;
  if (options.secret !== undefined) {
    checkWebhookSecret('The webhook secret', options.secret);
    signer = new Webhook(options.secret);
  }
  return (webhookId, body) => {
    const at = now();
    const headers: Record<string, string> = {
      'webhook-id': webhookId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    };
    if (signer) headers['webhook-signature'] = signer.sign(webhookId, at, body);
    return headers;
  };
}
