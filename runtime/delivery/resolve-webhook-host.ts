/** DNS step of a delivery: every resolved address checked, so a name pointing at a private or metadata address is refused. */
import { lookup as dnsLookup } from 'node:dns/promises';
import { classifyAddress, isAllowedAddressClass, type AddressClass, type WebhookUrlOptions } from '../webhook-url.js';

/** One resolved address, as `dns.lookup(host, { all: true })` gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address of a host name; injectable for tests. */
export type WebhookLookup = (hostname: string) => Promise<ResolvedAddress[]>;

/** A resolved address with the class the URL rules gave it. */
export interface CheckedAddress extends ResolvedAddress {
  addressClass: AddressClass;
}

/** Every address allowed, or the first problem with a sentence saying what to check. */
export type HostResolution =
  { ok: true; addresses: CheckedAddress[] } | { ok: false; reason: 'dns_failed' | 'blocked_address'; message: string; addresses: CheckedAddress[] };

/** The URL rules and the resolver. */
export interface ResolveWebhookHostOptions extends WebhookUrlOptions {
  /**
   * Resolver returning every address of the host.
   * @defaultValue the system's getaddrinfo (`dns.lookup` with `all: true`)
   */
  lookup?: WebhookLookup;
}

/** The system resolver (getaddrinfo), every address in the order it returns them. */
export const systemLookup: WebhookLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Classifies every address of `hostname` (an IP literal resolves to itself); one refused address
 * refuses the host, since the connection could go to any. Never throws.
 */
export async function resolveWebhookHost(hostname: string, options: ResolveWebhookHostOptions = {}): Promise<HostResolution> {
  const host = hostname.replace(/^\[|\]$/g, '');
  let resolved: ResolvedAddress[];
  if (classifyAddress(host)) {
    resolved = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  } else {
    try {
      resolved = await (options.lookup ?? systemLookup)(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException | undefined)?.code ?? String(error);
      return {
        ok: false,
        reason: 'dns_failed',
        addresses: [],
        message: `${host} does not resolve (${code}): check the host name of the webhook URL.`,
      };
    }
  }
  if (resolved.length === 0) {
    return {
      ok: false,
      reason: 'dns_failed',
      addresses: [],
      message: `${host} resolves to no address: check the host name of the webhook URL.`,
    };
  }
  // An unparsable answer is treated as reserved: refused, never connected to.
  const addresses = resolved.map((r) => ({ ...r, addressClass: classifyAddress(r.address) ?? ('reserved' as const) }));
  const blocked = addresses.find((a) => !isAllowedAddressClass(a.addressClass, options));
  if (blocked) {
    const kind = blocked.addressClass.replace('_', '-');
    return {
      ok: false,
      reason: 'blocked_address',
      addresses,
      message:
        `${host} resolves to ${blocked.address}, a ${kind} address: webhooks go only to public hosts that accept ` +
        'connections from outside' +
        (blocked.addressClass === 'loopback' || blocked.addressClass === 'private'
          ? '; allowPrivate (or --insecure-localhost for loopback) permits it for local testing.'
          : '.'),
    };
  }
  return { ok: true, addresses };
}
