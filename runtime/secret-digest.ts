/**
 * How secrets (API keys, webhook URL tokens) are compared on both sides: as SHA-256 digests,
 * with `timingSafeEqual`, so the time taken reveals neither the secret's length nor how much of
 * it matched. Node-only.
 */
import { hash, timingSafeEqual } from 'node:crypto';

/**
 * The SHA-256 digest of a secret: compute it once for a stored secret.
 *
 * @example const stored = secretDigest(apiKey);
 */
export function secretDigest(secret: string): Buffer {
  // One-shot hash (Node >= 20.12): half the cost of createHash().update().digest() per request.
  return hash('sha256', secret, 'buffer');
}

/**
 * Whether `given` is the secret whose digest is `expected`, in constant time.
 *
 * @param expected - `secretDigest` of the stored secret
 * @param given - what the request carried
 * @example secretMatches(secretDigest('k1'), 'k1') // true
 */
export function secretMatches(expected: Buffer, given: string): boolean {
  return timingSafeEqual(expected, secretDigest(given));
}
