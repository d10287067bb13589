/** Reads the rate-limit state an answer reports (x-decisions: rate-limit-headers). Never throws: unreadable fields are `undefined`. */

/** The caller's quota as one answer reported it. */
export interface RateLimitInfo {
  /** Requests allowed per window, when the service says. */
  limit: number | undefined;
  /** Requests left in the current window. */
  remaining: number;
  /** Seconds until the window resets, when the service says. */
  resetSeconds: number | undefined;
}

function count(value: string | null | undefined): number | undefined {
  const text = value?.trim();
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

/** Splits a structured-field list (RFC 9651 §3.1) on the commas outside quoted strings. */
function listMembers(value: string): string[] {
  const members: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i += 1) {
    const ch = value[i]!;
    if (quoted && ch === '\\') {
      current += ch + (value[i + 1] ?? '');
      i += 1;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      members.push(current);
      current = '';
    } else current += ch;
  }
  members.push(current);
  return members.map((m) => m.trim()).filter(Boolean);
}

/** `"name"; a=1; b=2` (or a bare token) as name and parameters; undefined when malformed. */
function member(text: string): { name: string; params: Map<string, string> } | undefined {
  const [head = '', ...rest] = text.split(';');
  if (!/^(?:"[^"\\]*"|[A-Za-z*][\w.:/%*+-]*)$/.test(head.trim())) return undefined;
  const params = new Map<string, string>();
  for (const part of rest) {
    const at = part.indexOf('=');
    if (at > 0) params.set(part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).trim());
  }
  return { name: head.trim().replace(/^"|"$/g, ''), params };
}

/** draft-ietf-httpapi-ratelimit-headers-08 and later; of several policies, the one with the fewest requests left. */
function fromDraft8(rateLimit: string, policy: string | null): RateLimitInfo | undefined {
  let best: { name: string; remaining: number; reset: number | undefined } | undefined;
  for (const m of listMembers(rateLimit).map(member)) {
    if (!m) continue;
    const remaining = count(m.params.get('r'));
    if (remaining === undefined || (best && best.remaining <= remaining)) continue;
    best = { name: m.name, remaining, reset: count(m.params.get('t')) };
  }
  if (!best) return undefined;
  const policies = policy ? listMembers(policy).map(member) : [];
  const limit = count(policies.find((policy) => policy?.name === best.name)?.params.get('q'));
  return { limit, remaining: best.remaining, resetSeconds: best.reset };
}

/** `RateLimit: limit=100, remaining=99, reset=60` (draft-ietf-httpapi-ratelimit-headers-07 and earlier). */
function fromDraft7(rateLimit: string): RateLimitInfo | undefined {
  const fields = new Map(listMembers(rateLimit).map((m) => [m.split('=')[0]!.trim().toLowerCase(), m.split('=')[1]] as const));
  const remaining = count(fields.get('remaining'));
  if (remaining === undefined) return undefined;
  return { limit: count(fields.get('limit')), remaining, resetSeconds: count(fields.get('reset')) };
}

// X-RateLimit-Reset is often a Unix time (GitHub, Twitter); a delta is far below this.
const UNIX_TIME_FLOOR = 1_000_000_000;

function fromSeparate(headers: Headers, prefix: string, nowMs: number): RateLimitInfo | undefined {
  const remaining = count(headers.get(`${prefix}remaining`));
  if (remaining === undefined) return undefined;
  const reset = count(headers.get(`${prefix}reset`));
  const resetSeconds = reset !== undefined && reset >= UNIX_TIME_FLOOR ? Math.max(0, reset - Math.floor(nowMs / 1000)) : reset;
  return { limit: count(headers.get(`${prefix}limit`)), remaining, resetSeconds };
}

/**
 * Tries the IETF `RateLimit` field (draft-08+, then the earlier `limit=, remaining=` form),
 * `RateLimit-*`, `X-RateLimit-*` and `X-Rate-Limit-*`; a Unix-time reset becomes seconds from
 * `nowMs`. Undefined when no form gives a readable remaining count.
 * @example parseRateLimit(new Headers({ RateLimit: '"100-in-1min"; r=99; t=60', 'RateLimit-Policy': '"100-in-1min"; q=100; w=60' })) // { limit: 100, remaining: 99, resetSeconds: 60 }
 */
export function parseRateLimit(headers: Headers, nowMs: number = Date.now()): RateLimitInfo | undefined {
  try {
    const rateLimit = headers.get('ratelimit');
    if (rateLimit) {
      const parsed = /\bremaining\s*=/i.test(rateLimit) ? fromDraft7(rateLimit) : fromDraft8(rateLimit, headers.get('ratelimit-policy'));
      if (parsed) return parsed;
    }
    for (const prefix of ['ratelimit-', 'x-ratelimit-', 'x-rate-limit-']) {
      const parsed = fromSeparate(headers, prefix, nowMs);
      if (parsed) return parsed;
    }
  } catch {
    // A Headers object that throws is treated as one without rate-limit fields.
  }
  return undefined;
}
