/** Secrets compared as SHA-256 digests in constant time, revealing neither length nor how much matched; no Node import. */
import { sha256Hex } from './sha256.js';

/**
 * The digest to keep of a secret, and to compare a given one by: lower-case hex (hex is `node:crypto`'s
 * fast output; a Buffer costs an allocation per call, and the key check runs on every request).
 */
export function secretDigest(secret: string): string {
  return sha256Hex(secret);
}

/**
 * Whether two digests of `secretDigest` are equal; time depends on their length only, which is fixed.
 * @example digestsEqual(secretDigest('k1'), secretDigest('k1')) // true
 */
export function digestsEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Whether `given` is the secret whose digest is `expected`, in constant time.
 * @example secretMatches(secretDigest('k1'), 'k1') // true
 */
export function secretMatches(expected: string, given: string): boolean {
  return digestsEqual(expected, secretDigest(given));
}
