/**
 * One observed exchange (a request and its answer), as the proxy or a HAR file gives it, and
 * the redaction every printed or written form of it goes through: the Authorization header,
 * webhook signatures and access tokens in a query never leave the process.
 */

/** Which side of the contract an exchange belongs to. */
export type ExchangeKind = 'api' | 'webhook';

/** Header name (lower case) to its values, in the order received. */
export type HeaderList = ReadonlyMap<string, readonly string[]>;

/** A request and its answer, with the bodies as text (undefined: not captured, over the cap). */
export interface Exchange {
  kind: ExchangeKind;
  method: string;
  /** Path and query as sent, e.g. `/v1/sessions/sess_1/resume`. */
  target: string;
  /** When the request started, ms since the epoch. */
  startedAt: number;
  /** When the answer ended (or the exchange failed), ms since the epoch. */
  endedAt: number;
  requestHeaders: HeaderList;
  requestBody: string | undefined;
  /** Undefined when no answer came (a connection error, a timeout). */
  status: number | undefined;
  responseHeaders: HeaderList;
  responseBody: string | undefined;
}

/** Headers whose values are secrets: never printed, never written. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'webhook-signature', 'svix-signature', 'x-api-key']);

/** Query parameters that carry credentials (the event feed's `access_token`). */
const SECRET_PARAMS = /^(access_token|token|api_key|key)$/i;

/** The text that replaces a secret. */
export const REDACTED = '[redacted]';

/** Whether a header (any case) holds a secret. */
export function isSecretHeader(name: string): boolean {
  return SECRET_HEADERS.has(name.toLowerCase());
}

/** A header value as it may be printed: secrets replaced (an Authorization keeps its scheme, `Bearer [redacted]`). */
export function printableHeader(name: string, value: string): string {
  if (!isSecretHeader(name)) return value;
  const scheme = /^(authorization|proxy-authorization)$/i.test(name) ? /^[A-Za-z][\w-]* (?=\S)/.exec(value)?.[0] : undefined;
  return `${scheme ?? ''}${REDACTED}`;
}

/** A path and query as it may be printed: credential parameters replaced. */
export function printableTarget(target: string): string {
  const q = target.indexOf('?');
  if (q < 0) return target;
  const params = target
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return SECRET_PARAMS.test(decodeSafe(name)) ? `${name}=${REDACTED}` : pair;
    });
  return `${target.slice(0, q)}?${params.join('&')}`;
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The first value of a header, or undefined. */
export function header(list: HeaderList, name: string): string | undefined {
  return list.get(name.toLowerCase())?.[0];
}

/** The path without its query. */
export function pathOf(exchange: Pick<Exchange, 'target'>): string {
  const q = exchange.target.search(/[?#]/);
  return q < 0 ? exchange.target : exchange.target.slice(0, q);
}

/** Builds a header list from name/value pairs (names lower-cased, repeats kept). */
export function headerList(pairs: Iterable<readonly [string, string]>): HeaderList {
  const list = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    const values = list.get(key);
    if (values) values.push(value);
    else list.set(key, [value]);
  }
  return list;
}
