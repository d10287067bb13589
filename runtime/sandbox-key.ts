/**
 * Sandbox keys: any bearer token that starts with `sandbox_` (and has something after it) is
 * valid in sandbox mode and names a world of its own. Browser-safe: Web Crypto only.
 */

/** The prefix every sandbox key starts with. */
export const SANDBOX_KEY_PREFIX = 'sandbox_';

/**
 * A fresh key with a world of its own, e.g. `sandbox_0b5e…` (a random UUID after the prefix);
 * use one per test so tests never share state.
 * @example createSandboxClient({ baseUrl, apiKey: newSandboxKey() })
 */
export function newSandboxKey(): string {
  return `${SANDBOX_KEY_PREFIX}${globalThis.crypto.randomUUID()}`;
}
