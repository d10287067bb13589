/**
 * Standard Webhooks signature verification (https://www.standardwebhooks.com), the small pure
 * core the receiver runs before anything else when it has a `secret`: headers and raw body in,
 * a verdict out, never a throw. The HMAC, the constant-time compare and the timestamp
 * tolerance are the `standardwebhooks` package's; this module adds rotation (several
 * secrets) and turns its exceptions into results.
 */
import { Webhook } from 'standardwebhooks';
import { OptionsError } from '@session-resume-api/runtime/options-error';

/** Seconds a `webhook-timestamp` may be away from the receiver's clock (fixed by the standard's library: 5 minutes). */
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

import { signatureHeaders, type WebhookHeaders } from './webhook-headers.js';

export type { WebhookHeaders } from './webhook-headers.js';

/** The verdict: `webhookId` is the sender's `webhook-id` when the signature holds. */
export type SignatureVerdict = { ok: true; webhookId: string } | { ok: false; message: string };

/** Checks one delivery: `(rawBody, headers) => verdict`. */
export type SignatureVerifier = (rawBody: string, headers: WebhookHeaders) => SignatureVerdict;

const SECRET_RULE = 'a secret is "whsec_" followed by base64 (at least 24 bytes of key is advised)';

/** Which of the three headers are missing, e.g. "webhook-signature is" or "webhook-id and webhook-signature are". */
function missingHeaders(found: Record<'id' | 'timestamp' | 'signature', string | undefined>): string {
  const missing = (['id', 'timestamp', 'signature'] as const).filter((k) => !found[k]).map((k) => `webhook-${k}`);
  return missing.length === 1 ? `${missing[0]} is` : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)} are`;
}

/**
 * Builds a verifier for one secret or several (rotation: a delivery signed with any of them
 * passes). Throws `OptionsError` for a secret that is not `whsec_` + base64.
 *
 * @param secret - one secret or a list, each `whsec_` + base64
 * @example
 * const verify = createSignatureVerifier(['whsec_NEW...', 'whsec_OLD...']);
 * const verdict = verify(rawBody, req.headers);
 * if (!verdict.ok) console.log(verdict.message);
 */
export function createSignatureVerifier(secret: string | readonly string[]): SignatureVerifier {
  const secrets = typeof secret === 'string' ? [secret] : [...(secret ?? [])];
  if (secrets.length === 0) throw new OptionsError(`createWebhookReceiver: secret must be one string or a non-empty list; ${SECRET_RULE}`);
  const hooks = secrets.map((s, i) => {
    const which = secrets.length > 1 ? `secret[${i}]` : 'secret';
    if (typeof s !== 'string' || !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(s)) {
      throw new OptionsError(`createWebhookReceiver: ${which} is not valid: ${SECRET_RULE}`);
    }
    try {
      return new Webhook(s);
    } catch (error) {
      throw new OptionsError(`createWebhookReceiver: ${which} is not valid: ${SECRET_RULE}`, { cause: error });
    }
  });

  return (rawBody, headers) => {
    const { id, timestamp, signature } = signatureHeaders(headers);
    if (!id || !timestamp || !signature) {
      return { ok: false, message: `This receiver accepts signed deliveries only: ${missingHeaders({ id, timestamp, signature })} required (webhook-id, webhook-timestamp and webhook-signature, or their svix- names).` };
    }
    const given = { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature };
    for (const hook of hooks) {
      try {
        hook.verify(rawBody, given, { jsonParse: false });
        return { ok: true, webhookId: id };
      } catch (error) {
        const reason = error instanceof Error ? error.message : '';
        // The timestamp and header checks do not depend on the secret: no other secret helps.
        if (/timestamp|Invalid Signature Headers/i.test(reason)) {
          return {
            ok: false,
            message: `The webhook-timestamp is not within ${SIGNATURE_TOLERANCE_SECONDS / 60} minutes of this receiver's clock (a replay, or a clock out of sync).`,
          };
        }
      }
    }
    return { ok: false, message: 'The webhook-signature does not match the body with any secret of this receiver.' };
  };
}
