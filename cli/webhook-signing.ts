/**
 * Signing of the CLI's deliveries (`webhook send`, `webhook check`, `listen`) with the code the
 * service signs with (runtime/delivery/webhook-headers.ts, Standard Webhooks), and the advice a
 * 401 from the receiver gets.
 */
import { randomUUID } from 'node:crypto';
import type { DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';
import { createWebhookHeaders } from '@session-resume-api/runtime/delivery/webhook-headers';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { UsageError } from './program.js';

/** Builds the Standard Webhooks headers of one attempt from the exact body sent. */
export type AttemptHeaders = (body: string) => Record<string, string>;

/** A fresh `webhook-id` in the service's form (`msg_` + UUID). */
export function newWebhookId(): string {
  return `msg_${randomUUID()}`;
}

/**
 * The headers of every attempt of one event: `webhook-id`, `webhook-timestamp`, and with a
 * secret `webhook-signature`, as the service sends them. Throws `UsageError` for a secret that
 * is not `whsec_` + base64.
 * @example const headers = createCliSigner('whsec_…'); await deliverEvent(url, event, { headers: headers('msg_1') });
 */
export function createCliSigner(secret: string | undefined): (webhookId: string) => AttemptHeaders {
  let build: ReturnType<typeof createWebhookHeaders>;
  try {
    build = createWebhookHeaders({ secret });
  } catch (error) {
    if (error instanceof OptionsError) throw new UsageError(`--secret is refused: ${error.message}`);
    throw error;
  }
  return (webhookId) => (body) => build(webhookId, body);
}

/**
 * A 401 from the receiver explained: it checks signatures, so pass `--secret` (or, when one was
 * passed, check it and the clocks of this host and the receiver). Any other result is returned as it is.
 */
export function withSigningAdvice(result: DeliveryResult, signed: boolean): DeliveryResult {
  if (result.delivered || result.status !== 401) return result;
  const host = safeHost(result.message);
  const message = signed
    ? `${host}answered 401 to a signed delivery: it checks Standard Webhooks signatures and refused this one; check that --secret is ` +
      "the receiver's signing secret and that the clocks of this host and the receiver agree (timestamps more than 5 minutes off are refused)."
    : `${host}answered 401: this receiver checks Standard Webhooks signatures; pass --secret whsec_… with its signing secret.`;
  return { ...result, message };
}

/** "host answered …" messages start with the host: keep it. */
function safeHost(message: string): string {
  const match = /^(\S+) answered /.exec(message);
  return match ? `${match[1]} ` : 'The receiver ';
}
