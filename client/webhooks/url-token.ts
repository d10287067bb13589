/** The URL token that protects an unsigned webhook endpoint (x-decisions: webhook-signing). */
import { secretDigest, secretMatches } from '@session-resume-api/runtime/secret-digest';

/** Shortest `urlToken` accepted, in characters (a 32-byte random token is 43). */
export const MIN_URL_TOKEN_LENGTH = 22;

/** A new unguessable token (32 random bytes, base64url, 43 characters) for the webhook URL. */
export function generateUrlToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  // base64url (RFC 4648 §5) without padding, from the Web Crypto random bytes.
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** Compares two tokens in constant time (digests first, so the length does not leak either). */
export function urlTokensEqual(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  return secretMatches(secretDigest(expected), given);
}

/** The last non-empty path segment of a request URL, percent-decoded; undefined when none. */
export function tokenFromUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const path = url.split(/[?#]/, 1)[0] ?? '';
  const segment = path.split('/').filter(Boolean).pop();
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
