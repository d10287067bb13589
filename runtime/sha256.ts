/**
 * SHA-256 with no static Node import, so the receiver runs in Workers, Deno, Bun and browsers.
 * `node:crypto`'s one-shot `hash` where `process.getBuiltinModule` offers it (a tenth of the cost),
 * else `fast-sha256`, synchronous (Web Crypto's digest would make every caller async).
 */
import fastSha256 from 'fast-sha256';

interface NodeHash {
  hash(algorithm: 'sha256', data: string, encoding: 'hex'): string;
  hash(algorithm: 'sha256', data: string, encoding: 'buffer'): Uint8Array;
}

type BuiltinLoader = { getBuiltinModule?(id: string): unknown };

function nodeCrypto(): NodeHash | undefined {
  const processLike = (globalThis as { process?: BuiltinLoader }).process;
  try {
    const crypto = processLike?.getBuiltinModule?.('node:crypto') as Partial<NodeHash> | undefined;
    return typeof crypto?.hash === 'function' ? (crypto as NodeHash) : undefined;
  } catch {
    return undefined;
  }
}

const native = nodeCrypto();
const encoder = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += HEX[byte];
  return text;
}

/** 32 bytes of the UTF-8 text's digest. */
export function sha256Bytes(text: string): Uint8Array {
  return native ? native.hash('sha256', text, 'buffer') : fastSha256.hash(encoder.encode(text));
}

/** Lower-case hex (64 characters), e.g. `sha256Hex('abc')` → `'ba7816bf…'`. */
export function sha256Hex(text: string): string {
  return native ? native.hash('sha256', text, 'hex') : toHex(fastSha256.hash(encoder.encode(text)));
}

/** The pure-JavaScript digest, always: for tests that compare both paths. */
export function portableSha256Hex(text: string): string {
  return toHex(fastSha256.hash(encoder.encode(text)));
}
