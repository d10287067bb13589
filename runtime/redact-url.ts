/** URLs as a log line may print them: no userinfo, no query or fragment (an `?access_token=`); the path stays. */

/**
 * Scheme, host and path only; non-URL text loses anything between `//` and `@` and from the first `?` or `#`.
 * @example redactUrl('redis://default:s3cret@cache:6379/0?tls=1') // 'redis://cache:6379/0'
 * @example redactUrl('/_sandbox/events?access_token=sandbox_x') // '/_sandbox/events'
 */
export function redactUrl(url: string): string {
  const cut = url.replace(/[?#].*$/s, '');
  // userinfo ends at the last @ before the path: a password may itself hold @ or :.
  return cut.replace(/^([A-Za-z][A-Za-z0-9+.-]*:)?\/\/[^/]*@/, (_m, scheme: string | undefined) => `${scheme ?? ''}//`);
}

const SECRET_KINDS = ['whsec_', 'sandbox_', 'dev_'];

/**
 * A secret the program did not generate, as output may show it: its kind prefix and 4 characters,
 * enough to tell two apart, never enough to use one.
 * @example maskSecret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') // 'whsec_MfKQ…'
 */
export function maskSecret(secret: string): string {
  const kind = SECRET_KINDS.find((prefix) => secret.startsWith(prefix)) ?? '';
  return `${kind}${secret.slice(kind.length, kind.length + 4)}…`;
}

/**
 * A webhook URL as output may show it: `redactUrl`, and its last path segment (the receiver's URL token) as `…`.
 * @example redactWebhookUrl('http://127.0.0.1:3001/webhooks/session-events/Zr3x') // 'http://127.0.0.1:3001/webhooks/session-events/…'
 * @example redactWebhookUrl('/webhooks/session-events/Zr3x?x=1') // '/webhooks/session-events/…'
 */
export function redactWebhookUrl(url: string): string {
  return redactUrl(url).replace(/^((?:[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]+)?\/(?:[^/]*\/)*?)[^/]+(\/?)$/, '$1…$2');
}
