/**
 * The webhook URL rules (x-decisions: webhook-url-policy),
 * one implementation for the client, the CLI and the server's delivery engine. Browser-safe: no
 * Node built-ins. DNS-time checks reuse `classifyAddress` on every resolved address.
 */
import { redactUrl } from './redact-url.js';
import ipaddr from 'ipaddr.js';

/** Why a URL was refused. */
export type WebhookUrlProblem = 'invalid' | 'not_absolute' | 'not_https' | 'credentials' | 'blocked_address';

/** Result of `validateWebhookUrl`: the parsed URL, or a code and a sentence saying what to fix. */
export type WebhookUrlCheck =
  | { ok: true; url: URL }
  | { ok: false; code: WebhookUrlProblem; reason: string };

/** Where an IP address points; only `public` is a legitimate webhook target by default. */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link_local' | 'reserved';

/** Options of the URL rules. */
export interface WebhookUrlOptions {
  /**
   * Allow loopback and private-network receivers, for local testing only.
   * Link-local addresses (cloud metadata, 169.254.169.254) stay refused even then.
   * @defaultValue `false`
   */
  allowPrivate?: boolean;
  /**
   * Allow loopback receivers only (not private networks), e.g. the CLI's --insecure-localhost.
   * @defaultValue `false`
   */
  allowLoopback?: boolean;
  /**
   * Local testing only: also accept plain `http://` when the host is
   * `localhost` or a loopback address, for a receiver on the developer's machine (the
   * server's sandbox mode and `WEBHOOK_INSECURE_LOCALHOST=1`). Every other host still needs HTTPS.
   * @defaultValue `false`
   */
  allowLoopbackHttp?: boolean;
  /**
   * What the refusal of a plain `http://` URL on a loopback host adds, naming the switch that
   * allows it where the URL is checked (e.g. the server's `WEBHOOK_INSECURE_LOCALHOST=1`).
   * @defaultValue none: the refusal names no switch
   */
  loopbackHttpHint?: string;
}

// Ranges ipaddr.js names for each class; anything not `unicast` and not listed is reserved
// (multicast, 6to4 and NAT64 that may embed a private IPv4, documentation, ...).
const LOOPBACK = new Set(['loopback', 'unspecified']);
const PRIVATE = new Set(['private', 'uniqueLocal', 'carrierGradeNat']);
const LINK_LOCAL = new Set(['linkLocal']);

/**
 * Classifies an IP literal (IPv4, IPv6, IPv4-mapped IPv6, with or without brackets).
 * Returns undefined for a host name.
 */
export function classifyAddress(address: string): AddressClass | undefined {
  const bare = canonicalIpv6(address.replace(/^\[|\]$/g, ''));
  if (!ipaddr.isValid(bare)) return undefined;
  // IPv4-compatible IPv6 (::a.b.c.d, the ::/96 range, deprecated by RFC 4291 §2.5.5.1) carries
  // an IPv4 address that some stacks still route to: refused whatever it embeds.
  if (bare.includes(':') && ipaddr.IPv6.isValid(bare) && isIpv4Compatible(ipaddr.IPv6.parse(bare))) return 'reserved';
  // process() turns ::ffff:a.b.c.d into the IPv4 address it carries.
  const range = ipaddr.process(bare).range();
  if (range === 'unicast') return 'public';
  if (LOOPBACK.has(range)) return 'loopback';
  if (PRIVATE.has(range)) return 'private';
  if (LINK_LOCAL.has(range)) return 'link_local';
  return 'reserved';
}

/**
 * An IPv6 literal as the URL standard serialises it (`::1.2.3.4` → `::102:304`); ipaddr.js
 * reads the dotted `::a.b.c.d` as if it were `::ffff:a.b.c.d`. Other text is returned as is.
 */
function canonicalIpv6(text: string): string {
  if (!text.includes(':')) return text;
  try {
    return new URL(`https://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return text;
  }
}

/** ::/96 except :: and ::1 (which ipaddr.js already names unspecified and loopback). */
function isIpv4Compatible(address: ipaddr.IPv6): boolean {
  const parts = address.parts;
  return parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || (parts[7] ?? 0) > 1);
}

/** Whether an address class may receive webhooks under `options`. */
export function isAllowedAddressClass(cls: AddressClass, options: WebhookUrlOptions = {}): boolean {
  if (cls === 'public') return true;
  if (cls === 'loopback' && options.allowLoopback) return true;
  return Boolean(options.allowPrivate) && (cls === 'loopback' || cls === 'private');
}

/** Longest accepted webhook URL (WebhookUrl schema, maxLength). */
const MAX_URL_LENGTH = 2048;

/** `localhost` and `*.localhost` always mean loopback (RFC 6761 §6.3). */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Whether a URL's host is a loopback host: `localhost`, `*.localhost`, 127.0.0.0/8 or ::1
 * (in any spelling the URL parser accepts); the unspecified 0.0.0.0 and :: are not.
 */
export function isLoopbackHost(hostname: string): boolean {
  if (isLocalhostName(hostname)) return true;
  if (classifyAddress(hostname) !== 'loopback') return false;
  return ipaddr.process(canonicalIpv6(hostname.replace(/^\[|\]$/g, ''))).range() === 'loopback';
}

/**
 * Checks a webhook URL: absolute, `https:` (plain HTTP is rejected),
 * no credentials, and a host that is not an IP literal or localhost name in a loopback,
 * private, link-local or reserved range (every spelling the URL parser accepts: decimal,
 * hex, octal, IPv4-mapped IPv6). Host names are checked again after DNS at each delivery attempt.
 */
export function validateWebhookUrl(input: string | URL, options: WebhookUrlOptions = {}): WebhookUrlCheck {
  const text = String(input);
  const parsed = parseWebhookUrl(text);
  if (!parsed.ok) return parsed;
  const { url } = parsed;
  const loopbackHost = isLoopbackHost(url.hostname);
  const loopbackHttp = options.allowLoopbackHttp === true && url.protocol === 'http:' && /^http:\/\/[^/?#]/i.test(text) && loopbackHost;
  if (loopbackHttp) return url.username || url.password ? credentialsRefusal() : { ok: true, url };
  return checkHttpsForm(url, text, loopbackHost, options) ?? checkHost(url, options) ?? { ok: true, url };
}

type Refusal = Extract<WebhookUrlCheck, { ok: false }>;

function credentialsRefusal(): Refusal {
  return { ok: false, code: 'credentials', reason: 'Webhook URLs must not contain credentials (user:password@): put a secret token in the path instead.' };
}

/** The text as given: within the WebhookUrl schema's length, no surrounding whitespace, a URL. */
function parseWebhookUrl(text: string): WebhookUrlCheck {
  // The WebhookUrl schema's limits: the URL is sent as given, so it is checked as given.
  if (text.length > MAX_URL_LENGTH) {
    return { ok: false, code: 'invalid', reason: `The URL is ${text.length} characters long; at most ${MAX_URL_LENGTH} are accepted.` };
  }
  if (text !== text.trim()) {
    return { ok: false, code: 'invalid', reason: `"${redactUrl(text)}" has leading or trailing whitespace; remove it.` };
  }
  try {
    return { ok: true, url: new URL(text) };
  } catch {
    return isRelativeUrl(text)
      ? { ok: false, code: 'not_absolute', reason: `"${redactUrl(text)}" is not an absolute URL: give the full https://host/path.` }
      : { ok: false, code: 'invalid', reason: `"${redactUrl(text)}" is not a URL.` };
  }
}

function isRelativeUrl(text: string): boolean {
  try {
    new URL(text, 'https://base.invalid');
    return text.length > 0;
  } catch {
    return false;
  }
}

/** `https:` written in full, with a host and no credentials; undefined when it is. */
function checkHttpsForm(url: URL, text: string, loopbackHost: boolean, options: WebhookUrlOptions): Refusal | undefined {
  if (url.protocol !== 'https:') {
    return {
      ok: false,
      code: 'not_https',
      reason:
        `Webhook URLs must use HTTPS: "${url.protocol}" is refused, use https://.` +
        (url.protocol === 'http:' && loopbackHost && options.loopbackHttpHint ? ` ${options.loopbackHttpHint}` : ''),
    };
  }
  // The URL parser also reads "https:host/path" and "https:/host/path"; the WebhookUrl schema
  // (pattern ^https://[^/?#]) and other parsers do not, so only the full form is accepted.
  if (!/^https:\/\/[^/?#]/i.test(text)) {
    return { ok: false, code: 'not_absolute', reason: `"${redactUrl(text)}" is not an absolute URL: write it as https://host/path.` };
  }
  if (!url.hostname) {
    return { ok: false, code: 'invalid', reason: `"${redactUrl(text)}" has no host.` };
  }
  if (url.username || url.password) return credentialsRefusal();
  return undefined;
}

/** A host that is not an IP literal or localhost name in a range the options do not allow; undefined when allowed. */
function checkHost(url: URL, options: WebhookUrlOptions): Refusal | undefined {
  const cls = isLocalhostName(url.hostname) ? 'loopback' : classifyAddress(url.hostname);
  if (!cls || isAllowedAddressClass(cls, options)) return undefined;
  return {
    ok: false,
    code: 'blocked_address',
    reason:
      `Webhook host ${url.hostname} is a ${cls.replace('_', '-')} address; webhooks go only to public hosts` +
      (cls === 'loopback' || cls === 'private' ? ' (allowPrivate permits it for local testing).' : '.'),
  };
}
