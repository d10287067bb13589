/** Secrets compared as SHA-256 digests in constant time, revealing neither length nor how much matched; no Node import. */
import { bytesEqual, sha256Bytes } from './sha256.js';

/** Compute once for a stored secret. */
export function secretDigest(secret: string): Uint8Array {
  return sha256Bytes(secret);
}

/**
 * Whether `given` is the secret whose digest is `expected`, in constant time.
 * @example secretMatches(secretDigest('k1'), 'k1') // true
 */
export function secretMatches(expected: Uint8Array, given: string): boolean {
  return bytesEqual(expected, sha256Bytes(given));
}
