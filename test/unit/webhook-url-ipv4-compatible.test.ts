/** IPv4-compatible IPv6 (::/96, deprecated by RFC 4291 §2.5.5.1) is never a public webhook target. */
import { describe, expect, it } from 'vitest';
import { classifyAddress, validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';

describe('IPv4-compatible IPv6 addresses', () => {
  it.each(['::127.0.0.1', '::169.254.169.254', '::10.0.0.1', '::8.8.8.8', '[::7f00:1]', '0:0:0:0:0:0:a9fe:a9fe', '::2'])(
    'classifies %s as reserved',
    (address) => {
      expect(classifyAddress(address)).toBe('reserved');
    },
  );

  it.each(['https://[::127.0.0.1]/', 'https://[::169.254.169.254]/x', 'https://[::10.0.0.1]/', 'https://[::a00:1]/'])(
    'refuses %s, even with allowPrivate',
    (url) => {
      expect(validateWebhookUrl(url)).toMatchObject({ ok: false, code: 'blocked_address' });
      expect(validateWebhookUrl(url, { allowPrivate: true, allowLoopback: true })).toMatchObject({ ok: false, code: 'blocked_address' });
    },
  );

  it('leaves ::, ::1 and IPv4-mapped addresses to their own classes', () => {
    expect(classifyAddress('::1')).toBe('loopback');
    expect(classifyAddress('::')).toBe('loopback');
    expect(classifyAddress('::ffff:127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::ffff:8.8.8.8')).toBe('public');
    expect(classifyAddress('2606:4700:4700::1111')).toBe('public');
  });
});
