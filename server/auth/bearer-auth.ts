/**
 * The bearer check (x-decisions: unauthorized): parses `Authorization`,
 * compares the key in constant time, and builds the RFC 6750 §3 challenge.
 */
import { BEARER_TOKEN_PATTERN } from '@session-resume-api/runtime/bearer-token';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { digestsEqual, secretDigest } from '@session-resume-api/runtime/secret-digest';

/** What the Authorization header carried. */
export type BearerCredentials = { kind: 'missing' } | { kind: 'malformed' } | { kind: 'token'; token: string };

/** The realm of the challenge (RFC 6750 §3). */
export const REALM = 'session-resume-api';

// RFC 6750 §2.1: "Bearer" 1*SP b64token; the scheme is case-insensitive (RFC 7235 §2.1).
const BEARER = new RegExp(`^bearer +(${BEARER_TOKEN_PATTERN}) *$`, 'i');

/** Parses an Authorization header value: missing, malformed (another scheme, no token) or a bearer token. */
export function parseBearer(header: string | undefined): BearerCredentials {
  const value = header?.trim();
  if (!value) return { kind: 'missing' };
  const match = BEARER.exec(value);
  return match?.[1] ? { kind: 'token', token: match[1] } : { kind: 'malformed' };
}

/**
 * The `WWW-Authenticate` value of a 401: `error="invalid_token"` only when a bearer token was
 * sent; a request without authentication information gets no error code (RFC 6750 §3.1).
 */
export function wwwAuthenticate(credentials: BearerCredentials): string {
  const base = `Bearer realm="${REALM}"`;
  return credentials.kind === 'token' ? `${base}, error="invalid_token"` : base;
}

/** Checks a token against the configured keys. */
export interface ApiKeyCheck {
  /** The matching key's id (a short hash, safe to log and to count by), or undefined. */
  (token: string): string | undefined;
}

/**
 * Builds the key check: SHA-256 digests compared in constant time, every key on every call, so
 * timing reveals neither a key's length nor which key nearly matched. Throws `OptionsError` unless
 * `apiKeys` is a non-empty list of non-empty strings (the one check of `createApp`'s `apiKeys`).
 */
export function createApiKeyCheck(apiKeys: readonly string[]): ApiKeyCheck {
  if (!Array.isArray(apiKeys) || apiKeys.length === 0 || apiKeys.some((k) => typeof k !== 'string' || k === '')) {
    throw new OptionsError('createApp: deps.apiKeys must be a non-empty list of non-empty strings.', { option: 'apiKeys' });
  }
  const keys = apiKeys.map((key) => {
    const digest = secretDigest(key);
    return { digest, id: digest.slice(0, 16) };
  });
  return (token) => {
    // One digest of the token, compared with every key's, all of them: the time never tells which key matched.
    const given = secretDigest(token);
    let found: string | undefined;
    for (const key of keys) {
      if (digestsEqual(key.digest, given)) found ??= key.id;
    }
    return found;
  };
}
