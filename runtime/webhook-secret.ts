/**
 * The Standard Webhooks secret rule, held by signer and verifier alike: `whsec_` and the base64 of at
 * least 24 bytes. A shorter HMAC key can be searched offline from one captured delivery, and a short
 * secret is mostly a paste cut off, reported at start-up rather than as a 401 per delivery.
 */
import { OptionsError } from './options-error.js';

/** Fewest bytes of key a `whsec_` secret carries. */
export const WEBHOOK_SECRET_MIN_BYTES = 24;

/** The rule as messages state it. */
export const WEBHOOK_SECRET_RULE = `whsec_ followed by the base64 of at least ${WEBHOOK_SECRET_MIN_BYTES} random bytes`;

const FORM = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/** Whether `secret` follows the rule (no throw). @example isWebhookSecret('whsec_c2hvcnQ=') // false: 5 bytes */
export function isWebhookSecret(secret: unknown): secret is string {
  if (typeof secret !== 'string') return false;
  const match = FORM.exec(secret);
  return match !== null && Math.floor(((match[1] as string).replace(/=+$/, '').length * 3) / 4) >= WEBHOOK_SECRET_MIN_BYTES;
}

/**
 * Throws `OptionsError` (option `secret`) unless `secret` follows the rule; `name` is `'createX: secret'`.
 * @example checkWebhookSecret('createWebhookHeaders: secret', options.secret);
 */
export function checkWebhookSecret(name: string, secret: unknown): asserts secret is string {
  if (!isWebhookSecret(secret)) throw new OptionsError(`${name} must be ${WEBHOOK_SECRET_RULE}.`, { option: 'secret' });
}
