/**
 * Standard Webhooks signature verification: headers and raw body in, a verdict out, never a throw.
 * HMAC, constant-time compare and tolerance are the `standardwebhooks` package's; this adds rotation
 * and picks the verdict from its own timestamp check, never from the library's error text.
 */
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { checkWebhookSecret, WEBHOOK_SECRET_RULE } from '@session-resume-api/runtime/webhook-secret';

/** Seconds a `webhook-timestamp` may be off the receiver's clock: x-delivery-policy `signature.toleranceMs`, the library's tolerance. */
export const SIGNATURE_TOLERANCE_SECONDS = WEBHOOK_DELIVERY_POLICY.signature.toleranceMs / 1000;

import { signatureHeaders, type WebhookHeaders } from './webhook-headers.js';

export type { WebhookHeaders } from './webhook-headers.js';

/** The verdict: `webhookId` is the sender's `webhook-id` when the signature holds. */
export type SignatureVerdict = { ok: true; webhookId: string } | { ok: false; message: string };

/** Checks one delivery: `(rawBody, headers) => verdict`. */
export type SignatureVerifier = (rawBody: string, headers: WebhookHeaders) => SignatureVerdict;

/** Checked as the library does (5 minutes either way), so a failure's verdict is known without its error. */
function timestampInTolerance(timestamp: string, nowMs: number): boolean {
  if (!/^\d{1,15}$/.test(timestamp)) return false;
  return Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) <= SIGNATURE_TOLERANCE_SECONDS;
}

const STALE_TIMESTAMP = `The webhook-timestamp is not within ${SIGNATURE_TOLERANCE_SECONDS / 60} minutes of this receiver's clock (a replay, or a clock out of sync).`;

/** e.g. "webhook-signature is" or "webhook-id and webhook-signature are". */
function missingHeaders(found: Record<'id' | 'timestamp' | 'signature', string | undefined>): string {
  const missing = (['id', 'timestamp', 'signature'] as const).filter((k) => !found[k]).map((k) => `webhook-${k}`);
  return missing.length === 1 ? `${missing[0]} is` : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)} are`;
}

/**
 * A verifier for one secret or several (rotation: any one passes). Throws `OptionsError` for a secret
 * that is not `whsec_` + base64 of at least 24 bytes (runtime/webhook-secret.ts says why).
 * @example const verdict = createSignatureVerifier(['whsec_NEW...', 'whsec_OLD...'])(rawBody, req.headers);
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
