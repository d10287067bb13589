/**
 * Conformance expectations on the rate-limit and CORS headers (x-decisions:
 * rate-limit-headers, cors-headers). Both are optional for a target (rate limits and CORS can
 * be off), so each check asks: when the target sends them, are they whole and consistent?
 */
import { parseRateLimit } from 'session-resume-api/client';

/** An answer's headers, as the runner received them. */
interface Answer {
  headers: Headers;
}

/**
 * Problems with the rate-limit fields of `answer`: RateLimit and RateLimit-Policy come together,
 * are readable, and the remaining count is within the limit. When `earlier` is given and both
 * report the same window, the count must have gone down (each request counts).
 */
export function rateLimitProblems(answer: Answer, earlier?: Answer): string[] {
  const rate = answer.headers.get('ratelimit');
  const policy = answer.headers.get('ratelimit-policy');
  if (rate === null && policy === null) return [];
  if (rate === null || policy === null) return ['RateLimit and RateLimit-Policy must be sent together'];
  const info = parseRateLimit(answer.headers);
  if (!info || info.limit === undefined) return [`RateLimit ${JSON.stringify(rate)} / RateLimit-Policy ${JSON.stringify(policy)} are not readable`];
  if (info.remaining > info.limit) return [`RateLimit remaining ${info.remaining} exceeds the limit ${info.limit}`];
  const before = earlier ? parseRateLimit(earlier.headers) : undefined;
  if (!earlier || !before) return [];
  // A window that reset between the two answers may give more back; only a same-window pair is compared.
  const sameWindow = info.resetSeconds !== undefined && before.resetSeconds !== undefined && info.resetSeconds <= before.resetSeconds;
  if (sameWindow && info.remaining >= before.remaining && before.remaining > 0) {
    return [`RateLimit remaining did not go down (${before.remaining} then ${info.remaining}): requests are not counted`];
  }
  return [];
}

/**
 * Problems with the CORS headers of an answer to a request from `origin`: when the target allows
 * it, Access-Control-Allow-Origin is that origin or `*`, and the rate-limit fields and the
 * challenge it sends are exposed to the page.
 */
export function corsProblems(answer: Answer, origin: string): string[] {
  const allowed = answer.headers.get('access-control-allow-origin');
  if (allowed === null) return [];
  if (allowed !== '*' && allowed !== origin) return [`Access-Control-Allow-Origin is ${JSON.stringify(allowed)}, not ${origin} or *`];
  const exposed = (answer.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
  if (exposed.includes('*')) return [];
  const needed = ['ratelimit', 'ratelimit-policy', 'retry-after', 'www-authenticate'].filter((name) => answer.headers.has(name) || name === 'retry-after');
  const missing = needed.filter((name) => !exposed.includes(name));
  return missing.length ? [`Access-Control-Expose-Headers lacks ${missing.join(', ')}: a browser client cannot read them`] : [];
}
