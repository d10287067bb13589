/** URLs in log lines and messages lose userinfo, query and fragment, whatever they hold. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactUrl } from '@session-resume-api/runtime/redact-url';

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
