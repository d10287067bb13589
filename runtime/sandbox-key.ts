/** Sandbox keys: any `sandbox_`-prefixed bearer token names a world of its own. Browser-safe. */

/** The prefix every sandbox key starts with. */
export const SANDBOX_KEY_PREFIX = 'sandbox_';

/** A fresh key with a world of its own, e.g. `createSandboxClient({ baseUrl, apiKey: newSandboxKey() })`; one per test keeps tests apart. */
export function newSandboxKey(): string {
  return `${SANDBOX_KEY_PREFIX}${globalThis.crypto.randomUUID()}`;
}
