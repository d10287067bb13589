/** deliverEvent against real HTTPS receivers on loopback (self-signed certificate, no mocks). */
import { VERSION } from '@session-resume-api/runtime/version';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { deliverEvent } from '@session-resume-api/runtime/delivery/deliver-event';
import type { WebhookLookup } from '@session-resume-api/runtime/delivery/resolve-webhook-host';
import { validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';
import { contract, type SessionEvent } from '@session-resume-api/runtime/contract';
import { getFreePort } from '../helpers/free-port.js';
import { getTestCertificate, startHttpsReceiver, type HttpsReceiver } from '../helpers/tls.js';

const event: SessionEvent = { event: 'session.resumed', session: { id: 'sess_paused_1' }, timestamp: '2026-11-21T16:00:00.000Z' };
const ca = getTestCertificate().cert;
const open: HttpsReceiver[] = [];
const receiver = async (...args: Parameters<typeof startHttpsReceiver>) => {
  const r = await startHttpsReceiver(...args);
  open.push(r);
  return r;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A resolver that records the names it was asked and answers from a fixed list. */
const fakeLookup = (...answers: string[][]): WebhookLookup & { calls: string[] } => {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    const list = answers[Math.min(calls.length, answers.length - 1)] ?? [];
    calls.push(hostname);
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(fn, { calls });
};

afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

describe('deliverEvent', () => {
  it('delivers a 200 with a JSON body that validates as SessionEvent', async () => {
    const r = await receiver();
    const result = await deliverEvent(`${r.origin}/hooks/tok?x=1`, event, { allowPrivate: true, ca });
    expect(result).toMatchObject({ delivered: true, status: 200, resolvedAddress: '127.0.0.1' });
    expect(result.certificate?.subject).toContain('CN=localhost');
    expect(r.requests).toHaveLength(1);
    const [req] = r.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/hooks/tok?x=1' });
    expect(req?.headers['content-type']).toBe('application/json');
    // The User-Agent names the packages' version.
    expect(req?.headers['user-agent']).toBe(`session-resume-api-webhooks/${VERSION}`);
    expect(req?.body).toBe(JSON.stringify(event));
    expect(contract.validate('SessionEvent', JSON.parse(req?.body ?? '')).ok).toBe(true);
  });

  it('refuses http:// without opening any connection', async () => {
    let connections = 0;
    const tcp = createTcpServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((res) => tcp.listen(0, '127.0.0.1', res));
    const { port } = tcp.address() as AddressInfo;
    const lookup = fakeLookup(['127.0.0.1']);
    const result = await deliverEvent(`http://127.0.0.1:${port}/hook`, event, { allowPrivate: true, lookup });
    await sleep(100);
    tcp.close();
    expect(result).toMatchObject({ delivered: false, reason: 'invalid_url' });
    expect(result.delivered === false && result.message).toMatch(/HTTPS/);
    expect(connections).toBe(0);
    expect(lookup.calls).toEqual([]);
  });

  it('refuses credentials in the URL before DNS', async () => {
    const lookup = fakeLookup(['93.184.215.14']);
    const result = await deliverEvent('https://user:pw@hooks.example.com/h', event, { lookup });
    expect(result).toMatchObject({ delivered: false, reason: 'invalid_url' });
    expect(lookup.calls).toEqual([]);
  });

  it('blocks a host that resolves to loopback, or to a public and a private address', async () => {
    for (const answer of [['127.0.0.1'], ['93.184.215.14', '10.0.0.1'], ['::ffff:10.0.0.1']]) {
      const result = await deliverEvent('https://hooks.example.com/h', event, { lookup: fakeLookup(answer) });
      expect(result).toMatchObject({ delivered: false, reason: 'blocked_address' });
      expect(result.delivered === false && result.message).toContain('public hosts that accept connections from outside');
    }
  });

  it('allowPrivate permits loopback and private, never link-local (metadata)', async () => {
    const r = await receiver();
    const ok = await deliverEvent(`https://localhost:${r.port}/h`, event, {
      allowPrivate: true,
      ca,
      lookup: fakeLookup(['127.0.0.1']),
    });
    expect(ok).toMatchObject({ delivered: true, resolvedAddress: '127.0.0.1' });
    const metadata = await deliverEvent('https://hooks.example.com/h', event, {
      allowPrivate: true,
      lookup: fakeLookup(['169.254.169.254']),
    });
    expect(metadata).toMatchObject({ delivered: false, reason: 'blocked_address' });
    const literal = await deliverEvent('https://169.254.169.254/latest', event, { allowPrivate: true });
    expect(literal).toMatchObject({ delivered: false, reason: 'blocked_address' });
  });

  it('connects pinned to the checked address even if a second lookup would answer otherwise', async () => {
    const r = await receiver();
    // First answer passes the check; any later lookup would rebind to an unreachable address.
    const lookup = fakeLookup(['127.0.0.1'], ['192.0.2.1']);
    const result = await deliverEvent(`https://localhost:${r.port}/h`, event, { allowPrivate: true, ca, lookup });
    expect(result).toMatchObject({ delivered: true, resolvedAddress: '127.0.0.1' });
    expect(lookup.calls).toEqual(['localhost']);
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]?.headers.host).toBe(`localhost:${r.port}`);
    expect(r.requests[0]?.servername).toBe('localhost');
  });

  it('delivers to an IPv6 literal, sending no SNI for an IP (RFC 6066 §3)', async () => {
    const r = await receiver(undefined, { host: '::1' });
    const result = await deliverEvent(`${r.origin}/h`, event, { insecureLocalhost: true });
    expect(result).toMatchObject({ delivered: true, resolvedAddress: '::1' });
    expect(r.requests[0]?.servername).toBeUndefined();
  });

  it('checks the certificate against the host name, not the pinned address', async () => {
    const r = await receiver();
    // The certificate names localhost and 127.0.0.1, never hooks.example.com.
    const result = await deliverEvent(`https://hooks.example.com:${r.port}/h`, event, {
      allowPrivate: true,
      ca,
      lookup: fakeLookup(['127.0.0.1']),
    });
    expect(result).toMatchObject({ delivered: false, reason: 'tls_failed', resolvedAddress: '127.0.0.1' });
    expect(result.delivered === false && result.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(r.requests).toHaveLength(0);
  });

  it('reports connection_failed when the receiver drops the connection without answering', async () => {
    const r = await receiver((_req, res) => {
      res.socket?.destroy();
    });
    const result = await deliverEvent(`${r.origin}/h`, event, { allowPrivate: true, ca });
    expect(result).toMatchObject({ delivered: false, reason: 'connection_failed' });
  });

  it('does not follow a 302: failed as redirect, nothing reaches the target', async () => {
    const target = await receiver();
    const r = await receiver((_req, res) => {
      res.writeHead(302, { location: `${target.origin}/elsewhere` }).end();
    });
    const result = await deliverEvent(`${r.origin}/h`, event, { allowPrivate: true, ca });
    expect(result).toMatchObject({ delivered: false, reason: 'redirect', status: 302 });
    await sleep(200);
    expect(target.requests).toHaveLength(0);
  });

  it.each([201, 500])('a %i answer is not delivered', async (status) => {
    const r = await receiver((_req, res) => {
      res.writeHead(status).end('nope');
    });
    const result = await deliverEvent(`${r.origin}/h`, event, { allowPrivate: true, ca });
    expect(result).toMatchObject({ delivered: false, reason: 'bad_status', status, response: { body: 'nope' } });
  });

  it('times out a receiver that takes 6 s at about 5 s', async () => {
    const r = await receiver(async (_req, res) => {
      await sleep(6000);
      if (!res.destroyed) res.writeHead(200).end();
    });
    const result = await deliverEvent(`${r.origin}/h`, event, { allowPrivate: true, ca });
    expect(result).toMatchObject({ delivered: false, reason: 'timeout' });
    console.info(`[measure] timeout fired at ${result.durationMs} ms`);
    expect(result.durationMs).toBeGreaterThan(4500);
    expect(result.durationMs).toBeLessThan(6000);
    expect(result.delivered === false && result.message).toMatch(/5 s/);
  }, 15_000);

  it('reads at most 64 KB of the answer', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(300_000));
    });
    const result = await deliverEvent(`${r.origin}/h`, event, { allowPrivate: true, ca });
    expect(result).toMatchObject({ delivered: true, response: { bytes: 65_536, truncated: true } });
    expect(result.response?.body).toHaveLength(65_536);
  });

  it('fails tls_failed for an untrusted certificate, and insecureLocalhost skips the check for loopback only', async () => {
    const r = await receiver();
    const untrusted = await deliverEvent(`${r.origin}/h`, event, { allowPrivate: true });
    expect(untrusted).toMatchObject({ delivered: false, reason: 'tls_failed' });
    expect(untrusted.delivered === false && untrusted.message).toContain('certificate');
    const insecure = await deliverEvent(`${r.origin}/h`, event, { insecureLocalhost: true });
    expect(insecure).toMatchObject({ delivered: true });
    // insecureLocalhost allows loopback only, not private networks.
    const priv = await deliverEvent('https://hooks.example.com/h', event, {
      insecureLocalhost: true,
      lookup: fakeLookup(['10.0.0.1']),
    });
    expect(priv).toMatchObject({ delivered: false, reason: 'blocked_address' });
  });

  it('reports connection_failed when nothing listens, and dns_failed when the name does not resolve', async () => {
    const port = await getFreePort();
    const refused = await deliverEvent(`https://127.0.0.1:${port}/h`, event, { allowPrivate: true, ca });
    expect(refused).toMatchObject({ delivered: false, reason: 'connection_failed' });
    expect(refused.delivered === false && refused.message).toContain('accepts incoming connections from outside');
    const nxdomain: WebhookLookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const dns = await deliverEvent('https://nowhere.example.com/h', event, { lookup: nxdomain });
    expect(dns).toMatchObject({ delivered: false, reason: 'dns_failed' });
    expect(dns.delivered === false && dns.message).toContain('ENOTFOUND');
  });
});

describe('validateWebhookUrl allowLoopback (extension for --insecure-localhost)', () => {
  it('allows loopback but not private hosts', () => {
    expect(validateWebhookUrl('https://127.0.0.1/h', { allowLoopback: true }).ok).toBe(true);
    expect(validateWebhookUrl('https://localhost/h', { allowLoopback: true }).ok).toBe(true);
    expect(validateWebhookUrl('https://10.0.0.1/h', { allowLoopback: true })).toMatchObject({ ok: false, code: 'blocked_address' });
    expect(validateWebhookUrl('https://127.0.0.1/h')).toMatchObject({ ok: false, code: 'blocked_address' });
  });
});
