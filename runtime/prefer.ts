/** Prism's `Prefer: code=…, example=…` selection (sandbox-prefer in spec/sandbox.yaml), shared by the sandbox and MSW handlers. */

/** What a Prefer header asks for: nothing (serve normally), a named example, or a name no example has. */
export type PreferChoice<S> = { kind: 'none' } | { kind: 'forced'; scenario: S } | { kind: 'unknown'; message: string };

/**
 * Reads `code=` and `example=` (RFC 7240 preferences). `example=` picks by name (status must match a
 * given `code=`); `code=` alone picks that status's first example.
 * @example choosePrefer('code=429', scenarios) // { kind: 'forced', scenario: <rateLimited> }
 */
export function choosePrefer<S extends { example: string; status: number }>(prefer: string | null | undefined, scenarios: readonly S[]): PreferChoice<S> {
  if (!prefer) return { kind: 'none' };
  const value = (name: string) => new RegExp(`(?:^|[,;\\s])${name}\\s*=\\s*"?([^,;\\s"]+)`, 'i').exec(prefer)?.[1];
  const example = value('example');
  const code = value('code');
  if (example === undefined && code === undefined) return { kind: 'none' };
  const found = scenarios.find((s) => (example === undefined || s.example === example) && (code === undefined || String(s.status) === code));
  if (found) return { kind: 'forced', scenario: found };
  const known = scenarios.map((s) => `code=${s.status}, example=${s.example}`).join('; ');
  return { kind: 'unknown', message: `Prefer asks for an answer the document does not name; use one of: ${known}.` };
}
