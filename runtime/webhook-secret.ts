/**
 * The one rule for a Standard Webhooks signing secret, for the side that signs (the service, the
 * CLI) and the side that verifies (the receiver kit): `whsec_` followed by the base64 of at least
 * 24 bytes.
 *
 * Why both sides hold the same strict rule: an HMAC key shorter than 24 bytes (192 bits) can be
 * searched offline from one captured delivery (its body and signature are both on the wire), so a
 * receiver verifying with one would only seem protected; and a secret comes out short mostly when
 * it was cut while pasted, which this check reports at start-up rather than as a 401 for every
 * delivery. Standard Webhooks itself advises keys of 24 to 64 bytes. Tolerance of what the service
 * sends is about wire data; a receiver's own configuration is refused when it cannot protect.
 */
import { OptionsError } from './options-error.js';

/** Fewest bytes of key a `whsec_` secret carries. */
export const WEBHOOK_SECRET_MIN_BYTES = 24;

/** The rule as users read it in messages: what a secret must be. */
export const WEBHOOK_SECRET_RULE = `whsec_ followed by the base64 of at least ${WEBHOOK_SECRET_MIN_BYTES} random bytes`;

const FORM = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/** Whether `secret` follows the rule (no throw). @example isWebhookSecret('whsec_c2hvcnQ=') // false: 5 bytes */
export function isWebhookSecret(secret: unknown): secret is string {
  if (typeof secret !== 'string') return false;
  const match = FORM.exec(secret);
  return match !== null && Math.floor(((match[1] as string).replace(/=+$/, '').length * 3) / 4) >= WEBHOOK_SECRET_MIN_BYTES;
}

/**
 * Throws `OptionsError` (option `secret`) unless `secret` follows the rule.
 *
 * @param name - what the message calls the secret, with its factory: `'createWebhookReceiver: secret[1]'`
 * @example checkWebhookSecret('createWebhookHeaders: secret', options.secret);
 */
export function checkWebhookSecret(name: string, secret: unknown): asserts secret is string {
  if (!isWebhookSecret(secret)) throw new OptionsError(`${name} must be ${WEBHOOK_SECRET_RULE}.`, { option: 'secret' });
}
