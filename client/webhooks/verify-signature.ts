/**
 * Standard Webhooks signature verification (https://www.standardwebhooks.com), the small pure
 * core the receiver runs before anything else when it has a `secret`: headers and raw body in,
 * a verdict out, never a throw. The HMAC, the constant-time compare and the timestamp
 * tolerance are the `standardwebhooks` package's; this module adds rotation (several
 * secrets) and turns its exceptions into results. Which verdict a failure gets comes from this
 * module's own check of the timestamp, never from the library's error text.
 */
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { checkWebhookSecret, WEBHOOK_SECRET_RULE } from '@session-resume-api/runtime/webhook-secret';

/**
 * Seconds a `webhook-timestamp` may be away from the receiver's clock: x-delivery-policy
 * `signature.toleranceMs`, which states the tolerance the standard's library enforces.
 */
export const SIGNATURE_TOLERANCE_SECONDS = WEBHOOK_DELIVERY_POLICY.signature.toleranceMs / 1000;

import { signatureHeaders, type WebhookHeaders } from './webhook-headers.js';

export type { WebhookHeaders } from './webhook-headers.js';

/** The verdict: `webhookId` is the sender's `webhook-id` when the signature holds. */
export type SignatureVerdict = { ok: true; webhookId: string } | { ok: false; message: string };

/** Checks one delivery: `(rawBody, headers) => verdict`. */
export type SignatureVerifier = (rawBody: string, headers: WebhookHeaders) => SignatureVerdict;

/**
 * Whether `webhook-timestamp` is Unix seconds within the tolerance of the clock, checked as the
 * library checks it (the same 5 minutes either way), so the verdict of a failed verification is
 * known without reading the library's error.
 */
function timestampInTolerance(timestamp: string, nowMs: number): boolean {
  if (!/^\d{1,15}$/.test(timestamp)) return false;
  return Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) <= SIGNATURE_TOLERANCE_SECONDS;
}

const STALE_TIMESTAMP = `The webhook-timestamp is not within ${SIGNATURE_TOLERANCE_SECONDS / 60} minutes of this receiver's clock (a replay, or a clock out of sync).`;

/** Which of the three headers are missing, e.g. "webhook-signature is" or "webhook-id and webhook-signature are". */
function missingHeaders(found: Record<'id' | 'timestamp' | 'signature', string | undefined>): string {
  const missing = (['id', 'timestamp', 'signature'] as const).filter((k) => !found[k]).map((k) => `webhook-${k}`);
  return missing.length === 1 ? `${missing[0]} is` : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)} are`;
}

/**
 * Builds a verifier for one secret or several (rotation: a delivery signed with any of them
 * passes). Throws `OptionsError` for a secret that is not `whsec_` + the base64 of at least 24 bytes
 * (runtime/webhook-secret.ts says why the receiver holds the signer's rule).
 *
 * @param secret - one secret or a list, each `whsec_` + base64
 * @example
 * const verify = createSignatureVerifier(['whsec_NEW...', 'whsec_OLD...']);
 * const verdict = verify(rawBody, req.headers);
 * if (!verdict.ok) console.log(verdict.message);
 */
export function createSignatureVerifier(secret: string | readonly string[]): SignatureVerifier {
  const secrets = typeof secret === 'string' ? [secret] : [...(secret ?? [])];
  if (secrets.length === 0) throw new OptionsError(`createWebhookReceiver: secret must be one string or a non-empty list, each ${WEBHOOK_SECRET_RULE}.`, { option: 'secret' });
  const hooks = secrets.map((s, i) => {
    const which = secrets.length > 1 ? `secret[${i}]` : 'secret';
    checkWebhookSecret(`createWebhookReceiver: ${which}`, s);
    return new Webhook(s);
  });

  return (rawBody, headers) => {
    const { id, timestamp, signature } = signatureHeaders(headers);
    if (!id || !timestamp || !signature) {
      return { ok: false, message: `This receiver accepts signed deliveries only: ${missingHeaders({ id, timestamp, signature })} required (webhook-id, webhook-timestamp and webhook-signature, or their svix- names).` };
    }
    // The timestamp does not depend on the secret: out of tolerance, no secret helps.
    if (!timestampInTolerance(timestamp, Date.now())) return { ok: false, message: STALE_TIMESTAMP };
    const given = { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature };
    for (const hook of hooks) {
      try {
        hook.verify(rawBody, given, { jsonParse: false });
        return { ok: true, webhookId: id };
      } catch {
        // A mismatch with this secret: the next one may match.
      }
    }
    // Checked again after: a timestamp at the edge of the tolerance may have left it meanwhile.
    if (!timestampInTolerance(timestamp, Date.now())) return { ok: false, message: STALE_TIMESTAMP };
    return { ok: false, message: 'The webhook-signature does not match the body with any secret of this receiver.' };
  };
}
