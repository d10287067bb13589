/**
 * Server-side request forgery through webhook URLs: every spelling of an internal address in
 * the fixture is refused by the URL rules (runtime/webhook-url.ts) AND by the delivery engine at send
 * time (deliverEvent with its resolver); names that resolve to internal addresses are
 * refused at send time; public HTTPS URLs are accepted. No network: the resolver is faked
 * and refused deliveries never connect.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deliverEvent } from '@session-resume-api/runtime/delivery/deliver-event';
import type { WebhookLookup } from '@session-resume-api/runtime/delivery/resolve-webhook-host';
import { validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';

/** Spellings of loopback, private, link-local, metadata and reserved targets, and non-HTTPS or malformed URLs. */
const SSRF_SPELLINGS: readonly string[] = [
  // loopback, IPv4 in every spelling the URL parser accepts
  'https://127.0.0.1/',
  'https://127.1/',
  'https://127.0.1/',
  'https://2130706433/',
  'https://0x7f000001/',
  'https://0x7f.0.0.1/',
  'https://0177.0.0.1/',
  'https://017700000001/',
  'https://127.000.000.001/',
  'https://127.0.0.1./',
  'https://127.255.255.254/',
  'https://%31%32%37.0.0.1/',
  'https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/',
  'https://127.0.0.1:22/',
  'https://0/',
  'https://0.0.0.0/',
  // loopback names (RFC 6761)
  'https://localhost/',
  'https://LOCALHOST/',
  'https://localhost./',
  'https://api.localhost/',
  'https://a.b.localhost:8443/x',
  // IPv6 loopback and unspecified
  'https://[::1]/',
  'https://[0:0:0:0:0:0:0:1]/',
  'https://[0::1]/',
  'https://[::]/',
  'https://[::ffff:127.0.0.1]/',
  'https://[::ffff:7f00:1]/',
  // IPv4-compatible IPv6 (::/96)
  'https://[::127.0.0.1]/',
  'https://[::169.254.169.254]/',
  'https://[::10.0.0.1]/',
  'https://[::7f00:1]/',
  'https://[::8.8.8.8]/',
  'https://[0:0:0:0:0:0:a9fe:a9fe]/',
  // private networks
  'https://10.0.0.1/',
  'https://10.255.255.255/',
  'https://012.0.0.1/',
  'https://167772161/',
  'https://172.16.0.1/',
  'https://172.31.255.255/',
  'https://192.168.0.1/',
  'https://0300.0250.0.1/',
  'https://0xc0a80001/',
  'https://100.64.0.1/',
  'https://[::ffff:10.0.0.1]/',
  'https://[::ffff:c0a8:1]/',
  'https://[fd00::1]/',
  'https://[fc00::1]/',
  // link-local and cloud metadata
  'https://169.254.169.254/',
  'https://169.254.169.254/latest/meta-data/',
  'https://2852039166/',
  'https://0xa9fea9fe/',
  'https://0251.0376.0251.0376/',
  'https://[::ffff:169.254.169.254]/',
  'https://[::ffff:a9fe:a9fe]/',
  'https://[fe80::1]/',
  'https://[fe80::a9fe:a9fe]/',
  'https://169.254.0.1/',
  // reserved: multicast, broadcast, documentation, benchmarking, NAT64, 6to4, Teredo, SIIT
  'https://224.0.0.1/',
  'https://255.255.255.255/',
  'https://192.0.2.1/',
  'https://198.18.0.1/',
  'https://240.0.0.1/',
  'https://[ff02::1]/',
  'https://[64:ff9b::a9fe:a9fe]/',
  'https://[64:ff9b::127.0.0.1]/',
  'https://[2002:7f00:1::]/',
  'https://[2001::1]/',
  'https://[::ffff:0:127.0.0.1]/',
  'https://[2001:db8::1]/',
  // credentials, or a host hidden after them
  'https://user:pass@example.com/',
  'https://user@example.com/',
  'https://example.com@127.0.0.1/',
  'https://:@169.254.169.254/',
  // not HTTPS, not absolute, not a URL
  'http://example.com/',
  'HTTP://example.com/',
  'http://127.0.0.1/',
  'ftp://example.com/',
  'file:///etc/passwd',
  'gopher://127.0.0.1:6379/_INFO',
  'javascript:alert(1)',
  'data:text/plain,x',
  'ws://example.com/',
  'https:example.com/x',
  'https:/example.com/x',
  '//example.com/x',
  '/hooks',
  'https://',
  '',
  ' https://example.com/',
  'https://example.com/ ',
  `https://example.com/${'a'.repeat(2100)}`,
];

/** Public HTTPS URLs the rules accept. */
const PUBLIC_URLS: readonly string[] = [
  'https://hooks.example.org/session-events/7f3c9a',
  'https://example.com',
  'HTTPS://EXAMPLE.COM/Path',
  'https://example.com:8443/a?b=c#frag',
  'https://8.8.8.8/x',
  'https://1.1.1.1/',
  'https://[2606:4700:4700::1111]/',
  'https://[::ffff:8.8.8.8]/',
  'https://xn--bcher-kva.example/in',
  'https://bücher.example/in',
  'https://sub.domain.example.co.uk/path/to/hook',
  'https://172.32.0.1/',
  'https://100.128.0.1/',
  'https://192.169.0.1/',
  'https://localhost.example.com/',
  'https://127.0.0.1.nip.io/',
];

/** Names whose DNS answer is internal: the URL rules cannot know, the delivery engine must refuse them. */
const REBINDING: Record<string, string[]> = {
  'metadata.rebind.example': ['169.254.169.254'],
  'loopback.rebind.example': ['127.0.0.1'],
  'private.rebind.example': ['10.0.0.7'],
  'mixed.rebind.example': ['93.184.216.34', '192.168.1.1'],
  'v6.rebind.example': ['::1'],
  'mapped.rebind.example': ['::ffff:127.0.0.1'],
  'compat.rebind.example': ['::a9fe:a9fe'],
  'ula.rebind.example': ['fd12:3456::1'],
  'garbage.rebind.example': ['not-an-address'],
  'empty.rebind.example': [],
};

/** A resolver with fixed answers that records every question. */
function fakeLookup(asked: string[]): WebhookLookup {
  return async (hostname) => {
    asked.push(hostname);
    const answers = REBINDING[hostname];
    if (!answers) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const event = { event: 'session.resumed', session: { id: 'sess_ssrf' }, timestamp: '2026-11-21T16:00:00.000Z' };

describe('webhook URLs: SSRF spellings', () => {
  it(`has at least 60 spellings in the fixture (${SSRF_SPELLINGS.length})`, () => {
    expect(SSRF_SPELLINGS.length).toBeGreaterThanOrEqual(60);
    expect(new Set(SSRF_SPELLINGS).size).toBe(SSRF_SPELLINGS.length);
  });

  it('refuses every spelling by the URL rules', () => {
    const accepted = SSRF_SPELLINGS.filter((url) => validateWebhookUrl(url).ok);
    console.log(`adversarial webhook URLs: ${SSRF_SPELLINGS.length} SSRF spellings tried, ${accepted.length} accepted by the URL rules`);
    expect(accepted).toEqual([]);
  });

  it('refuses every spelling at send time, without connecting', async () => {
    const asked: string[] = [];
    const delivered: string[] = [];
    for (const url of SSRF_SPELLINGS) {
      const result = await deliverEvent(url, event, { lookup: fakeLookup(asked), timeoutMs: 2000 });
      if (result.delivered || !['invalid_url', 'blocked_address'].includes(result.reason)) delivered.push(`${url}: ${JSON.stringify(result)}`);
    }
    expect(delivered).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('refuses names that resolve to an internal address (one bad address refuses the host)', async () => {
    const asked: string[] = [];
    for (const host of Object.keys(REBINDING)) {
      const url = `https://${host}/hook`;
      expect(validateWebhookUrl(url).ok, url).toBe(true);
      const result = await deliverEvent(url, event, { lookup: fakeLookup(asked), timeoutMs: 2000 });
      expect(result.delivered, url).toBe(false);
      expect(result.delivered ? '' : result.reason, url).toMatch(/^(blocked_address|dns_failed)$/);
    }
    expect(asked).toEqual(Object.keys(REBINDING));
  });

  it('refuses private, loopback and link-local IPv4 addresses in any generated spelling', () => {
    const internal = fc.oneof(
      fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
    );
    const spell = (octets: number[], style: number): string => {
      const value = octets.reduce((n, o) => n * 256 + o, 0);
      switch (style) {
        case 0:
          return String(value);
        case 1:
          return `0x${value.toString(16)}`;
        case 2:
          return octets.map((o) => `0${o.toString(8)}`).join('.');
        case 3:
          return `[::ffff:${octets.join('.')}]`;
        case 4:
          return `[::${octets.join('.')}]`;
        default:
          return `${octets[0]}.${(octets[1]! << 16) | (octets[2]! << 8) | octets[3]!}`;
      }
    };
    fc.assert(
      fc.property(internal, fc.integer({ min: 0, max: 5 }), (octets, style) => !validateWebhookUrl(`https://${spell(octets, style)}/x`).ok),
      { numRuns: 1000 },
    );
  });
});

describe('webhook URLs: public HTTPS', () => {
  it('accepts every public URL by the URL rules', () => {
    const refused = PUBLIC_URLS.map((url) => [url, validateWebhookUrl(url)] as const).filter(([, check]) => !check.ok);
    expect(refused).toEqual([]);
  });
});
