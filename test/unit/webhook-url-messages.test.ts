/**
 * The webhook URL policy (runtime/webhook-url.ts) beyond its codes: the reasons it gives, the
 * loopback allowances and the IP literal spellings it classifies.
 */
import { describe, expect, it } from 'vitest';
import { classifyAddress, isAllowedAddressClass, isLoopbackHost, validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';

const reason = (url: string, options = {}) => {
  const check = validateWebhookUrl(url, options);
  return check.ok ? 'ok' : `${check.code}: ${check.reason}`;
};

describe('validateWebhookUrl reasons', () => {
  it('says allowPrivate permits a loopback or private host, and never a link-local one', () => {
    expect(reason('https://127.0.0.1/in')).toBe(
      'blocked_address: Webhook host 127.0.0.1 is a loopback address; webhooks go only to public hosts (allowPrivate permits it for local testing).',
    );
    expect(reason('https://10.0.0.1/in')).toBe(
      'blocked_address: Webhook host 10.0.0.1 is a private address; webhooks go only to public hosts (allowPrivate permits it for local testing).',
    );
    expect(reason('https://169.254.169.254/in')).toBe(
      'blocked_address: Webhook host 169.254.169.254 is a link-local address; webhooks go only to public hosts.',
    );
    expect(reason('https://169.254.169.254/in', { allowPrivate: true })).toMatch(/^blocked_address/);
  });

  it('refuses credentials under the loopback http allowance, a user name alone included', () => {
    const credentials = 'credentials: Webhook URLs must not contain credentials (user:password@): put a secret token in the path instead.';
    expect(reason('http://user@localhost/in', { allowLoopbackHttp: true })).toBe(credentials);
    expect(reason('http://:pw@localhost/in', { allowLoopbackHttp: true })).toBe(credentials);
    expect(reason('http://localhost/in', { allowLoopbackHttp: true })).toBe('ok');
    expect(reason('https://user@hooks.example.org/in')).toBe(credentials);
  });

  it('adds the hint only to a plain http URL on a loopback host', () => {
    const hint = { loopbackHttpHint: 'Set X=1.' };
    expect(reason('http://localhost/in', hint)).toBe('not_https: Webhook URLs must use HTTPS: "http:" is refused, use https://. Set X=1.');
    expect(reason('http://hooks.example.org/in', hint)).toBe('not_https: Webhook URLs must use HTTPS: "http:" is refused, use https://.');
    expect(reason('ftp://localhost/in', hint)).toBe('not_https: Webhook URLs must use HTTPS: "ftp:" is refused, use https://.');
  });

  it('takes only the full http://host form under the loopback allowance', () => {
    expect(reason('http:localhost/in', { allowLoopbackHttp: true })).toMatch(/^not_https/);
    expect(reason('xhttp://localhost/in', { allowLoopbackHttp: true })).toMatch(/^not_https/);
    expect(reason('https:/hooks.example.org/in')).toMatch(/^not_absolute/);
  });
});

describe('address classes', () => {
  it('reads bracketed IPv6 and IPv4-compatible forms', () => {
    expect(classifyAddress('[::1]')).toBe('loopback');
    expect(classifyAddress('[fe80::1]')).toBe('link_local');
    expect(classifyAddress('[::ffff:10.0.0.1]')).toBe('private');
    expect(classifyAddress('::10.0.0.1')).toBe('reserved');
    expect(classifyAddress('10.0.0.1')).toBe('private');
    expect(classifyAddress('hooks.example.org')).toBeUndefined();
  });

  it('lets allowLoopback admit loopback only, allowPrivate loopback and private', () => {
    expect(isAllowedAddressClass('loopback', { allowLoopback: true })).toBe(true);
    expect(isAllowedAddressClass('private', { allowLoopback: true })).toBe(false);
    expect(isAllowedAddressClass('loopback', { allowPrivate: true })).toBe(true);
    expect(isAllowedAddressClass('private', { allowPrivate: true })).toBe(true);
    expect(isAllowedAddressClass('link_local', { allowPrivate: true, allowLoopback: true })).toBe(false);
    expect(isAllowedAddressClass('loopback')).toBe(false);
  });

  it('counts localhost names and 127/8 and ::1 as loopback hosts, not the unspecified address', () => {
    for (const host of ['localhost', 'LOCALHOST.', 'a.localhost', '127.0.0.2', '[::1]']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '[::]', 'localhost.example.org', '10.0.0.1']) expect(isLoopbackHost(host), host).toBe(false);
  });
});
