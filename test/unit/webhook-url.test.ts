/**
 * validateWebhookUrl (client/webhook-url.ts): the webhook URL rules of source spec §6 rule 1
 * and x-decisions: webhook-url-policy, and its agreement with the spec's WebhookUrl schema.
 */
import { describe, expect, it } from 'vitest';
import { classifyAddress, validateWebhookUrl, type WebhookUrlProblem } from '@session-resume-api/runtime/webhook-url';
import { contract } from '@session-resume-api/runtime/contract';

const refused = (input: string, code: WebhookUrlProblem, options = {}) => {
  const check = validateWebhookUrl(input, options);
  expect(check, input).toMatchObject({ ok: false, code });
  if (!check.ok) expect(check.reason.length).toBeGreaterThan(10);
};

describe('validateWebhookUrl', () => {
  it('accepts a public absolute https URL, returning the parsed URL', () => {
    const check = validateWebhookUrl('https://hooks.example.org:8443/session-events/7f3c9a?x=1');
    expect(check.ok).toBe(true);
    if (check.ok) expect(check.url.href).toBe('https://hooks.example.org:8443/session-events/7f3c9a?x=1');
    expect(validateWebhookUrl(new URL('https://8.8.8.8/hook')).ok).toBe(true);
    expect(validateWebhookUrl('HTTPS://hooks.example.org/x').ok).toBe(true);
    expect(validateWebhookUrl('https://[2001:4860:4860::8888]/x').ok).toBe(true);
  });

  it.each(['', 'https://exa mple.com/', 'http://', ' https://hooks.example.org/'])('refuses %j as invalid', (input) => refused(input, 'invalid'));

  it('refuses a URL longer than the schema maxLength (2048) as invalid', () => {
    const base = 'https://hooks.example.org/';
    expect(validateWebhookUrl(base + 'a'.repeat(2048 - base.length)).ok).toBe(true);
    refused(base + 'a'.repeat(2049 - base.length), 'invalid');
  });

  it.each(['/hooks', 'hooks.example.org/x', '//hooks.example.org/x', 'https:hooks.example.org/x', 'https:/hooks.example.org/x'])(
    'refuses %j as not absolute',
    (input) => refused(input, 'not_absolute'),
  );

  it.each(['http://hooks.example.org/x', 'HTTP://hooks.example.org/x', 'ftp://hooks.example.org/', 'ws://hooks.example.org/'])(
    'refuses %j as not https (source spec §6 rule 1)',
    (input) => refused(input, 'not_https'),
  );

  it.each(['https://user:pw@hooks.example.org/', 'https://user@hooks.example.org/', 'https://:pw@hooks.example.org/'])('refuses credentials in %j', (input) =>
    refused(input, 'credentials'),
  );

  it.each([
    ['https://127.0.0.1/', 'loopback'],
    ['https://2130706433/', 'loopback'],
    ['https://0x7f000001/', 'loopback'],
    ['https://0177.0.0.1/', 'loopback'],
    ['https://017700000001/', 'loopback'],
    ['https://127.1/', 'loopback'],
    ['https://%31%32%37.0.0.1/', 'loopback'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://[::1]/', 'loopback'],
    ['https://[0:0:0:0:0:0:0:1]/', 'loopback'],
    ['https://0.0.0.0/', 'loopback'],
    ['https://localhost/', 'loopback'],
    ['https://LOCALHOST./', 'loopback'],
    ['https://hooks.localhost/', 'loopback'],
    ['https://10.0.0.1/', 'private'],
    ['https://172.16.0.1/', 'private'],
    ['https://192.168.1.1/', 'private'],
    ['https://0xc0a80101/', 'private'],
    ['https://100.64.0.1/', 'private'],
    ['https://[fd00:ec2::254]/', 'private'],
    ['https://[::ffff:10.0.0.1]/', 'private'],
  ])('refuses %s (%s), allowed with allowPrivate', (input) => {
    refused(input, 'blocked_address');
    expect(validateWebhookUrl(input, { allowPrivate: true }).ok, input).toBe(true);
  });

  it.each([
    'https://169.254.169.254/latest/meta-data/',
    'https://0xa9fea9fe/',
    'https://2852039166/',
    'https://0251.0376.0251.0376/',
    'https://[::ffff:169.254.169.254]/',
    'https://[fe80::1]/',
  ])('refuses link-local %s even with allowPrivate', (input) => {
    refused(input, 'blocked_address');
    refused(input, 'blocked_address', { allowPrivate: true });
  });

  it('names the address class in the reason', () => {
    const check = validateWebhookUrl('https://169.254.169.254/');
    expect(check).toMatchObject({ ok: false, reason: expect.stringContaining('link-local') });
  });

  it('classifies address literals, and leaves host names undecided', () => {
    expect(classifyAddress('8.8.8.8')).toBe('public');
    expect(classifyAddress('[::1]')).toBe('loopback');
    expect(classifyAddress('::ffff:192.168.0.1')).toBe('private');
    expect(classifyAddress('224.0.0.1')).toBe('reserved');
    expect(classifyAddress('hooks.example.org')).toBeUndefined();
  });
});

describe('validateWebhookUrl and the WebhookUrl schema agree on scheme and absoluteness', () => {
  const corpus = [
    'https://hooks.example.org/x',
    'HTTPS://hooks.example.org/x',
    'Https://hooks.example.org',
    'https://hooks.example.org:8443/a/b?c=d#e',
    'https://8.8.8.8/hook',
    'https://[2001:4860:4860::8888]/hook',
    'http://hooks.example.org/x',
    'ftp://hooks.example.org/x',
    'mailto:ops@example.org',
    'urn:isbn:0451450523',
    'https:hooks.example.org/x',
    'https:/hooks.example.org/x',
    'https:///hooks',
    'https://',
    'https://?x=1',
    'https://#frag',
    '//hooks.example.org/x',
    '/hooks',
    'hooks.example.org/x',
    'not a url',
    'https://exa mple.com/',
    ' https://hooks.example.org/x',
    'https://hooks.example.org/x ',
    '',
  ];
  it.each(corpus)('%j', (input) => {
    const ours = validateWebhookUrl(input).ok;
    const schema = contract.validate('WebhookUrl', input).ok;
    expect(ours).toBe(schema);
  });
});
