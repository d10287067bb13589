/** An answer's known cause for the delivery log: 401 the signature (secret or clocks), 404 the URL's path (the receiver kit's URL token). */
import type { DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';

/** The failure's message, with the cause named when the status tells it; `signed` is whether deliveries carry a signature. */
export function adviceFor(result: Extract<DeliveryResult, { delivered: false }>, signed: boolean): string {
  const host = /^(\S+) answered /.exec(result.message)?.[1] ?? 'The receiver';
  if (result.status === 401) {
    return signed
      ? `${host} answered 401 to a signed delivery: it refused the signature. Check that the receiver holds the signing secret the server signs with (WEBHOOK_SECRET) and that both clocks agree within 5 minutes.`
      : `${host} answered 401 to an unsigned delivery: the receiver checks signatures; give the server its signing secret (WEBHOOK_SECRET).`;
  }
  if (result.status === 404) {
    return `${host} answered 404: the receiver serves nothing at this URL's path. Check the webhook URL (WEBHOOK_URL), its last segment above all: the receiver's URL token.`;
  }
  return result.message;
}
