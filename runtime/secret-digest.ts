/**
 * How secrets (API keys, webhook URL tokens) are compared on both sides: as SHA-256 digests,
 * in constant time, so the time taken reveals neither the secret's length nor how much of it
 * matched. No Node import: the receiver's URL-token check runs in any runtime.
 */
import { bytesEqual, sha256Bytes } from './sha256.js';

/**
 * The SHA-256 digest of a secret: compute it once for a stored secret.
 *
 * @example const stored = secretDigest(apiKey);
 */
export function secretDigest(secret: string): Uint8Array {
  return sha256Bytes(secret);
}

/**
 * Whether `given` is the secret whose digest is `expected`, in constant time.
 *
 * @param expected - `secretDigest` of the stored secret
 * @param given - what the request carried
 * @example secretMatches(secretDigest('k1'), 'k1') // true
 */
export function secretMatches(expected: Uint8Array, given: string): boolean {
  return bytesEqual(expected, sha256Bytes(given));
}
