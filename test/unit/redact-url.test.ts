/**
 * URLs in log lines and messages lose userinfo, query and fragment, whatever they hold; a
 * webhook URL also its last path segment (the URL token); a secret the program did not
 * generate shows its first 4 characters after its kind prefix.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskSecret, redactUrl, redactWebhookUrl } from '@session-resume-api/runtime/redact-url';

describe('redactUrl', () => {
  it.each([
    ['redis://default:s3cret@cache:6379/0?tls=1', 'redis://cache:6379/0'],
    ['rediss://:p@ss@word@cache:6380', 'rediss://cache:6380'],
    ['/_sandbox/events?access_token=sandbox_x', '/_sandbox/events'],
    ['https://hooks.example.org/path#frag', 'https://hooks.example.org/path'],
    ['not a url ?secret', 'not a url '],
  ])('%s → %s', (url, printed) => expect(redactUrl(url)).toBe(printed));

  it('property: a password or a query value never survives', () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9]{8,20}$/).map((s) => `SECRET${s}`);
    const host = fc.constantFrom('cache', '10.0.0.5:6379', '[::1]:7000');
    fc.assert(
      fc.property(secret, secret, host, fc.constantFrom('redis', 'rediss', 'http'), (password, token, h, scheme) => {
        const printed = redactUrl(`${scheme}://user:${password}@${h}/0?access_token=${token}`);
        expect(printed).toBe(`${scheme}://${h}/0`);
      }),
    );
  });
});

describe('redactWebhookUrl and maskSecret', () => {
  it.each([
    ['http://127.0.0.1:3001/webhooks/session-events/Zr3xQ8pL0vTtA9sD2fG5hJ7kW1mN4bV6cX8zY0uI2oE', 'http://127.0.0.1:3001/webhooks/session-events/…'],
    ['https://u:p@hooks.example.org/in/tok?sig=1', 'https://hooks.example.org/in/…'],
    ['https://hooks.example.org/tok/', 'https://hooks.example.org/…/'],
    ['https://hooks.example.org', 'https://hooks.example.org'],
    ['/webhooks/session-events/Zr3x?sig=1', '/webhooks/session-events/…'],
    ['/hooks', '/…'],
  ])('%s → %s', (url, shown) => {
    expect(redactWebhookUrl(url)).toBe(shown);
  });

  it('never shows the last path segment of any URL (property)', () => {
    const segment = fc.stringMatching(/^[a-z0-9-]{1,10}$/);
    fc.assert(
      fc.property(fc.domain(), fc.array(segment, { maxLength: 3 }), fc.stringMatching(/^[A-Za-z0-9_-]{22,64}$/), fc.boolean(), (host, path, token, query) => {
        const url = `https://${host}/${[...path, token].join('/')}${query ? '?sig=1' : ''}`;
        expect(redactWebhookUrl(url)).not.toContain(token);
      }),
    );
  });

  it('keeps the kind prefix and 4 characters of a secret', () => {
    expect(maskSecret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBe('whsec_MfKQ…');
    expect(maskSecret('sandbox_alice_42')).toBe('sandbox_alic…');
    expect(maskSecret('k1-production-key')).toBe('k1-p…');
  });
});
