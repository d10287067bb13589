/**
 * URLs as they may be printed in a log line or a message: without userinfo (a password in
 * `redis://user:pass@host`) and without the query and fragment (an `?access_token=`). The
 * path stays: it says where, and a secret path segment is the caller's choice to log.
 */

/**
 * The printable form of `url`: scheme, host and path only. Text that is not a URL loses
 * anything between `//` and `@` and everything from the first `?` or `#`.
 *
 * @example redactUrl('redis://default:s3cret@cache:6379/0?tls=1') // 'redis://cache:6379/0'
 * @example redactUrl('/_sandbox/events?access_token=sandbox_x') // '/_sandbox/events'
 */
export function redactUrl(url: string): string {
  const cut = url.replace(/[?#].*$/s, '');
  // userinfo ends at the last @ before the path: a password may itself hold @ or :.
  return cut.replace(/^([A-Za-z][A-Za-z0-9+.-]*:)?\/\/[^/]*@/, (_m, scheme: string | undefined) => `${scheme ?? ''}//`);
}

/** Prefixes that name a secret's kind rather than carry its randomness; shown in full by `maskSecret`. */
const SECRET_KINDS = ['whsec_', 'sandbox_', 'dev_'];

/**
 * A secret as output may show it when the program did not generate it (it came from the
 * environment or a flag): its kind prefix (`whsec_`, `sandbox_`, `dev_`) and the first 4
 * characters after it, enough to tell two secrets apart, never enough to use one.
 *
 * @example maskSecret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') // 'whsec_MfKQ…'
 */
export function maskSecret(secret: string): string {
  const kind = SECRET_KINDS.find((prefix) => secret.startsWith(prefix)) ?? '';
  return `${kind}${secret.slice(kind.length, kind.length + 4)}…`;
}

/**
 * A webhook URL (or its path alone) as output may show it: `redactUrl`, and its last path
 * segment (where the receiver kit reads the URL token) replaced by `…`.
 *
 * @example redactWebhookUrl('http://127.0.0.1:3001/webhooks/session-events/Zr3x') // 'http://127.0.0.1:3001/webhooks/session-events/…'
 * @example redactWebhookUrl('/webhooks/session-events/Zr3x?x=1') // '/webhooks/session-events/…'
 */
export function redactWebhookUrl(url: string): string {
  return redactUrl(url).replace(/^((?:[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]+)?\/(?:[^/]*\/)*?)[^/]+(\/?)$/, '$1…$2');
}
