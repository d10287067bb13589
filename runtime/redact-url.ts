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
