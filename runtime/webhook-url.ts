/** The webhook URL rules (x-decisions: webhook-url-policy), one implementation for all sides. Browser-safe. */
import { redactUrl } from './redact-url.js';
import ipaddr from 'ipaddr.js';

/** Why a URL was refused. */
export type WebhookUrlProblem = 'invalid' | 'not_absolute' | 'not_https' | 'credentials' | 'blocked_address';

/** Result of `validateWebhookUrl`: the parsed URL, or a code and a sentence saying what to fix. */
export type WebhookUrlCheck = { ok: true; url: URL } | { ok: false; code: WebhookUrlProblem; reason: string };

/** Where an IP address points; only `public` is a legitimate webhook target by default. */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link_local' | 'reserved';

/** Options of the URL rules. */
export interface WebhookUrlOptions {
  /**
   * Allow loopback and private-network receivers (local testing); link-local (cloud metadata) stays refused.
   * @defaultValue `false`
   */
  allowPrivate?: boolean;
  /**
   * Allow loopback receivers only, e.g. the CLI's --insecure-localhost.
   * @defaultValue `false`
   */
  allowLoopback?: boolean;
  /**
   * Local testing only: accept plain `http://` on `localhost` or a loopback address (sandbox mode,
   * `WEBHOOK_INSECURE_LOCALHOST=1`); every other host still needs HTTPS.
   * @defaultValue `false`
   */
  allowLoopbackHttp?: boolean;
  /**
   * Added to the refusal of plain `http://` on a loopback host, naming the switch that allows it.
   * @defaultValue none
   */
  loopbackHttpHint?: string;
}

// Anything not `unicast` and not listed is reserved (multicast, 6to4 and NAT64 that may embed a private IPv4, ...).
const LOOPBACK = new Set(['loopback', 'unspecified']);
const PRIVATE = new Set(['private', 'uniqueLocal', 'carrierGradeNat']);
const LINK_LOCAL = new Set(['linkLocal']);

/** Classifies an IP literal (any spelling, brackets allowed); undefined for a host name. */
export function classifyAddress(address: string): AddressClass | undefined {
  const bare = canonicalIpv6(address.replace(/^\[|\]$/g, ''));
  if (!ipaddr.isValid(bare)) return undefined;
  // IPv4-compatible IPv6 (::/96, deprecated by RFC 4291 §2.5.5.1) may still route to its IPv4: refused.
  if (bare.includes(':') && ipaddr.IPv6.isValid(bare) && isIpv4Compatible(ipaddr.IPv6.parse(bare))) return 'reserved';
  // process() turns ::ffff:a.b.c.d into the IPv4 address it carries.
  const range = ipaddr.process(bare).range();
  if (range === 'unicast') return 'public';
  if (LOOPBACK.has(range)) return 'loopback';
  if (PRIVATE.has(range)) return 'private';
  if (LINK_LOCAL.has(range)) return 'link_local';
  return 'reserved';
}

/** As the URL standard serialises IPv6 (`::1.2.3.4` → `::102:304`): ipaddr.js would read it as `::ffff:a.b.c.d`. */
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
  return parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || (parts[7] ?? 0) > 1);
}

/** Whether an address class may receive webhooks under `options`. */
export function isAllowedAddressClass(cls: AddressClass, options: WebhookUrlOptions = {}): boolean {
  if (cls === 'public') return true;
  if (cls === 'loopback' && options.allowLoopback) return true;
  return Boolean(options.allowPrivate) && (cls === 'loopback' || cls === 'private');
}

/** WebhookUrl schema maxLength. */
const MAX_URL_LENGTH = 2048;

/** `localhost` and `*.localhost` always mean loopback (RFC 6761 §6.3). */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** `localhost`, `*.localhost`, 127.0.0.0/8 or ::1 in any spelling; not the unspecified 0.0.0.0 and ::. */
export function isLoopbackHost(hostname: string): boolean {
  if (isLocalhostName(hostname)) return true;
  if (classifyAddress(hostname) !== 'loopback') return false;
  return ipaddr.process(canonicalIpv6(hostname.replace(/^\[|\]$/g, ''))).range() === 'loopback';
}

/**
 * Checks a webhook URL: absolute, `https:`, no credentials, and no IP literal or localhost name in a
 * blocked range (every spelling the URL parser accepts). Host names are checked again after DNS at each attempt.
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

function parseWebhookUrl(text: string): WebhookUrlCheck {
  // Sent as given, so checked as given.
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
  // The URL parser also reads "https:host" and "https:/host"; the WebhookUrl schema and other parsers do not.
  if (!/^https:\/\/[^/?#]/i.test(text)) {
    return { ok: false, code: 'not_absolute', reason: `"${redactUrl(text)}" is not an absolute URL: write it as https://host/path.` };
  }
  if (!url.hostname) {
    return { ok: false, code: 'invalid', reason: `"${redactUrl(text)}" has no host.` };
  }
  if (url.username || url.password) return credentialsRefusal();
  return undefined;
}

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
