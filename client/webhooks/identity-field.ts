/**
 * The compact form of an event's identities, as every store keeps them for the dedupe window: 128
 * bits of the digest, base64url, after a letter saying which identity (`t` the event's, `w` the
 * sender's `webhook-id`). 23 characters whatever the identity's length; no Node built-in, so the
 * memory and Durable Object stores run on every platform.
 */
import { sha256Bytes } from '@session-resume-api/runtime/sha256';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const SHA256_HEX = /^[0-9a-f]{64}$/i;
/** Bytes of a digest kept: 128 bits, far from any collision at the events a window holds. */
const KEPT_BYTES = 16;

/** `letter` then the first 16 bytes base64url, built as one flat string (a slice of a longer one would keep it alive). */
function field(letter: string, digest: Uint8Array): string {
  const bytes = digest.subarray(0, KEPT_BYTES);
  const codes = [letter.charCodeAt(0)];
  for (let i = 0; i < KEPT_BYTES; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    codes.push(ALPHABET.charCodeAt(n >>> 18), ALPHABET.charCodeAt((n >>> 12) & 63));
    if (i + 1 < KEPT_BYTES) codes.push(ALPHABET.charCodeAt((n >>> 6) & 63));
    if (i + 2 < KEPT_BYTES) codes.push(ALPHABET.charCodeAt(n & 63));
  }
  return String.fromCharCode(...codes);
}

/** The bytes of a lower- or upper-case hex digest. */
function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/**
 * The field of a dedupe key: `t` + 128 bits, base64url, of the key itself when it is a sha256 hex
 * digest (the receiver's keys are), else of its sha256.
 * @example identityField('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad') // 'tungWv48Bz-pBQUDeXa4iIw'
 */
export const identityField = (dedupeKey: string): string => field('t', SHA256_HEX.test(dedupeKey) ? hexBytes(dedupeKey) : sha256Bytes(dedupeKey));

/** The field of a `webhook-id`: `w` + 128 bits of its sha256, base64url. */
export const webhookIdField = (webhookId: string): string => field('w', sha256Bytes(webhookId));
