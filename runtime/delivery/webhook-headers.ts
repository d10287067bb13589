/**
 * Standard Webhooks headers of one delivery attempt (x-decisions: webhook-standard-headers):
 * `webhook-id` (stable per event), `webhook-timestamp` (Unix seconds of the attempt) and, with
 * a secret, `webhook-signature` made by the `standardwebhooks` package (v1 = HMAC-SHA256 of
 * `id.timestamp.body`, base64).
 */
import { OptionsError } from '../options-error.js';
import { checkWebhookSecret } from '../webhook-secret.js';
import { Webhook } from 'standardwebhooks';

/**
 * Builds (and, with a secret, signs) the headers of one attempt for the exact body bytes sent;
 * what a receiver reads back is a header record, not this function.
 */
export type SignWebhookHeaders = (webhookId: string, body: string) => Record<string, string>;

/** Options of `createWebhookHeaders`. */
export interface WebhookHeadersOptions {
  /**
   * Signing secret, `whsec_` + base64 (at least 24 bytes), or several during a rotation: each
   * signs, one `v1,` signature per secret in `webhook-signature`, space-separated (Standard
   * Webhooks), so a receiver holding any one of them accepts.
   * @defaultValue none: unsigned (`webhook-id` and `webhook-timestamp` only)
   */
  secret?: string | readonly string[] | undefined;
  /**
   * Clock of `webhook-timestamp`.
   * @defaultValue `() => new Date()`
   */
  now?: () => Date;
}

/**
 * Checks the secret once and returns the header builder.
 * @example
 * const headers = createWebhookHeaders({ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
 * headers('msg_1', '{"event":"session.resumed"}'); // { 'webhook-id', 'webhook-timestamp', 'webhook-signature' }
 */
export function createWebhookHeaders(options: WebhookHeadersOptions = {}): SignWebhookHeaders {
  const now = options.now ?? (() => new Date());
  const secrets = options.secret === undefined ? [] : typeof options.secret === 'string' ? [options.secret] : [...options.secret];
  if (options.secret !== undefined && secrets.length === 0) throw new OptionsError('Give at least one webhook secret, or none for unsigned deliveries.', { option: 'secret' });
  const signers = secrets.map((secret, i) => {
    checkWebhookSecret(secrets.length > 1 ? `Webhook secret ${i + 1} of ${secrets.length}` : 'The webhook secret', secret);
    return new Webhook(secret);
  });
  return (webhookId, body) => {
    const at = now();
    const headers: Record<string, string> = {
      'webhook-id': webhookId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    };
    if (signers.length > 0) headers['webhook-signature'] = signers.map((signer) => signer.sign(webhookId, at, body)).join(' ');
    return headers;
  };
}
