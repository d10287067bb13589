/** Request headers from any framework; a `Headers` object is read through `get` (`Object.entries` of one is empty). */

/** Request headers: a `Headers` object, or a record as node:http gives it (lower-case names; any case is found). */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

const isHeaders = (headers: WebhookHeaders): headers is Headers =>
  typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function';

/** A record's name matches in any case; a repeated header (an array) counts as absent: one delivery carries one of each. */
export function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (isHeaders(headers)) return headers.get(name) ?? undefined;
  const direct = headers[name];
  if (direct !== undefined) return typeof direct === 'string' ? direct : undefined;
  for (const key in headers) {
    if (key.toLowerCase() === name) {
      const value = headers[key];
      return typeof value === 'string' ? value : undefined;
    }
  }
  return undefined;
}

/** The Standard Webhooks headers of a delivery, read under their names or, else, under Svix's. */
export interface SignatureHeaders {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
}

/** `webhook-*`, or Svix's `svix-*` names of the same scheme when the Standard Webhooks name is absent. */
export function signatureHeaders(headers: WebhookHeaders): SignatureHeaders {
  return {
    id: headerValue(headers, 'webhook-id') ?? headerValue(headers, 'svix-id'),
    timestamp: headerValue(headers, 'webhook-timestamp') ?? headerValue(headers, 'svix-timestamp'),
    signature: headerValue(headers, 'webhook-signature') ?? headerValue(headers, 'svix-signature'),
  };
}
