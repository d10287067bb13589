/** Standard Webhooks headers of one attempt (x-decisions: webhook-standard-headers), signed by the `standardwebhooks` package. */
import { OptionsError } from '../options-error.js';
import { checkWebhookSecret } from '../webhook-secret.js';
import { Webhook } from 'standardwebhooks';

/** Builds (and with a secret signs) one attempt's headers for the exact body bytes sent. */
export type SignWebhookHeaders = (webhookId: string, body: string) => Record<string, string>;

/** Options of `createWebhookHeaders`. */
export interface WebhookHeadersOptions {
  /**
   * Signing secret (`whsec_`, at least 24 bytes), or several during a rotation: one `v1,` signature
   * each, so a receiver holding any one accepts.
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
 * @example createWebhookHeaders({ secret })('msg_1', body) // { 'webhook-id', 'webhook-timestamp', 'webhook-signature' }
 */
export function createWebhookHeaders(options: WebhookHeadersOptions = {}): SignWebhookHeaders {
  const now = options.now ?? (() => new Date());
  const secrets = options.secret === undefined ? [] : typeof options.secret === 'string' ? [options.secret] : [...options.secret];
  if (options.secret !== undefined && secrets.length === 0)
    throw new OptionsError('Give at least one webhook secret, or none for unsigned deliveries.', { option: 'secret' });
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
