/** What a bearer token may hold (RFC 6750 §2.1 b64token): a key with another character could not travel in a `Bearer` header. */

/** The b64token grammar as a regular-expression source, without anchors, to embed in a larger pattern. */
export const BEARER_TOKEN_PATTERN = '[A-Za-z0-9\\-._~+/]+=*';

/** The allowed characters, as people read them in an error message. */
export const BEARER_TOKEN_CHARACTERS = 'A-Z a-z 0-9 - . _ ~ + / and trailing =';

const WHOLE = new RegExp(`^${BEARER_TOKEN_PATTERN}$`);

/** True when `value` is one whole b64token (RFC 6750 §2.1). */
export function isBearerToken(value: string): boolean {
  return WHOLE.test(value);
}
