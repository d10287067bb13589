/**
 * Standard Webhooks signature verification: headers and raw body in, a verdict out, never a throw.
 * The HMAC is the `standardwebhooks` package's (`Webhook.sign` at the delivery's own timestamp);
 * the timestamp is checked here against x-delivery-policy `signature.toleranceMs`, because the
 * package's `verify` applies a tolerance of its own (5 minutes) that a spec may not share. This
 * adds rotation and a constant-time comparison of each `v1,` signature.
 */
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { checkWebhookSecret, WEBHOOK_SECRET_RULE } from '@session-resume-api/runtime/webhook-secret';
import { signatureHeaders, type WebhookHeaders } from './webhook-headers.js';

/** Seconds a `webhook-timestamp` may be off the receiver's clock: x-delivery-policy `signature.toleranceMs`. */
export const SIGNATURE_TOLERANCE_SECONDS = WEBHOOK_DELIVERY_POLICY.signature.toleranceMs / 1000;

export type { WebhookHeaders } from './webhook-headers.js';

/** The verdict: `webhookId` is the sender's `webhook-id` when the signature holds. */
export type SignatureVerdict = { ok: true; webhookId: string } | { ok: false; message: string };

/** Checks one delivery: `(rawBody, headers) => verdict`. */
export type SignatureVerifier = (rawBody: string, headers: WebhookHeaders) => SignatureVerdict;

/** Whole Unix seconds, at most `toleranceMs` away from `nowMs` either way. */
function timestampInTolerance(timestamp: string, nowMs: number, toleranceMs: number): boolean {
  if (!/^\d{1,15}$/.test(timestamp)) return false;
  return Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) * 1000 <= toleranceMs;
}

/** Equal strings, compared in time that depends on their length only. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

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
  return createVerifierWithTolerance(secret, WEBHOOK_DELIVERY_POLICY.signature.toleranceMs);
}

/** `createSignatureVerifier` with the tolerance given: the spec's number in the kit, another in a test that changes it. */
export function createVerifierWithTolerance(secret: string | readonly string[], toleranceMs: number): SignatureVerifier {
  const secrets = typeof secret === 'string' ? [secret] : [...(secret ?? [])];
  if (secrets.length === 0)
    throw new OptionsError(`createWebhookReceiver: secret must be one string or a non-empty list, each ${WEBHOOK_SECRET_RULE}.`, { option: 'secret' });
  const hooks = secrets.map((s, i) => {
    const which = secrets.length > 1 ? `secret[${i}]` : 'secret';
    checkWebhookSecret(`createWebhookReceiver: ${which}`, s);
    return new Webhook(s);
  });
  const stale = `The webhook-timestamp is outside the tolerance: more than ${toleranceMs / 60_000} minutes from this receiver's clock (a replay, or a clock out of sync).`;

  return (rawBody, headers) => {
    const { id, timestamp, signature } = signatureHeaders(headers);
    if (!id || !timestamp || !signature) {
      return {
        ok: false,
        message: `This receiver accepts signed deliveries only: ${missingHeaders({ id, timestamp, signature })} required (webhook-id, webhook-timestamp and webhook-signature, or their svix- names).`,
      };
    }
    // The timestamp does not depend on the secret: out of tolerance, no secret helps.
    if (!timestampInTolerance(timestamp, Date.now(), toleranceMs)) return { ok: false, message: stale };
    const signedAt = new Date(Number(timestamp) * 1000);
    const given = signature.split(' ');
    for (const hook of hooks) {
      const expected = hook.sign(id, signedAt, rawBody);
      if (given.some((candidate) => sameText(candidate, expected))) return { ok: true, webhookId: id };
    }
    return { ok: false, message: 'The webhook-signature does not match the body with any secret of this receiver.' };
  };
}
