/**
 * The rules both packages hold once (runtime/): the integer rule and its text form, `host:port`,
 * the `whsec_` secret, the bearer token's characters, and the one OptionsError.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exponentialDelayMs } from '@session-resume-api/runtime/backoff';
import { isBearerToken } from '@session-resume-api/runtime/bearer-token';
import { parseHostPort } from '@session-resume-api/runtime/host-port';
import { checkInteger, isIntegerIn, OptionsError, parseWholeNumber } from '@session-resume-api/runtime/options-error';
import { checkWebhookSecret, isWebhookSecret, WEBHOOK_SECRET_MIN_BYTES } from '@session-resume-api/runtime/webhook-secret';
import { createSandboxClient } from '../../client/sandbox/index.js';
import { parseBearer } from '../../server/auth/bearer-auth.js';
import { loadConfig } from '../../server/config.js';

describe('the integer rule', () => {
  it('takes safe integers within inclusive bounds only', () => {
    expect([isIntegerIn(1, { min: 1 }), isIntegerIn(0, { min: 1 }), isIntegerIn(1.5), isIntegerIn('1'), isIntegerIn(2 ** 53)]).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it('reads digits only from text, within bounds', () => {
    expect(['8080', '0', '65536', '1e3', ' 1', '-1', '0x10', ''].map((t) => parseWholeNumber(t, { min: 0, max: 65_535 }))).toEqual([
      8080,
      0,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('any text is either a whole number within bounds or undefined (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const n = parseWholeNumber(text, { min: 1, max: 1000 });
        return n === undefined || (Number.isInteger(n) && n >= 1 && n <= 1000 && String(n) === text.replace(/^0+(?=\d)/, ''));
      }),
    );
  });

  it('checkInteger throws OptionsError naming the option', () => {
    expect(() => checkInteger('createX: concurrency', 0, { min: 1 })).toThrow(expect.objectContaining({ name: 'OptionsError', option: 'concurrency' }));
  });
});

describe('host:port', () => {
  it('reads names, IPv4 and bracketed IPv6 with a port from 1 to 65535', () => {
    expect(parseHostPort('redis-1:7000')).toEqual({ host: 'redis-1', port: 7000 });
    expect(parseHostPort('10.0.0.5:6379')).toEqual({ host: '10.0.0.5', port: 6379 });
    expect(parseHostPort('[::1]:7000')).toEqual({ host: '::1', port: 7000 });
    for (const bad of ['redis://a:1', 'a', 'a:0', 'a:65536', ':1', 'a b:1', '::1:7000', 'a:1/x']) expect(parseHostPort(bad)).toBeUndefined();
  });
});

describe('the whsec_ secret', () => {
  const secret = (bytes: number) => `whsec_${Buffer.alloc(bytes, 7).toString('base64')}`;

  it(`needs the base64 of at least ${WEBHOOK_SECRET_MIN_BYTES} bytes, padded as base64 is`, () => {
    expect([secret(24), secret(25), secret(64)].every(isWebhookSecret)).toBe(true);
    for (const bad of [secret(23), 'whsec_', 'whsec_c2hvcnQ=', `${secret(24)}x`, secret(24).replace('whsec_', 'whsek_'), 42])
      expect(isWebhookSecret(bad)).toBe(false);
    expect(() => checkWebhookSecret('createX: secret', secret(5))).toThrow(
      expect.objectContaining({ option: 'secret', message: expect.stringMatching(/must be whsec_/) }),
    );
  });

  it('agrees with Buffer on the number of bytes for any key length (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 80 }),
        (key) => isWebhookSecret(`whsec_${Buffer.from(key).toString('base64')}`) === key.length >= WEBHOOK_SECRET_MIN_BYTES,
      ),
    );
  });
});

describe('one backoff', () => {
  it("doubles from the base per failed attempt, as BullMQ's exponential backoff does", () => {
    expect([1, 2, 3, 4].map((n) => exponentialDelayMs(n, 1000, 2))).toEqual([1000, 2000, 4000, 8000]);
  });
});

describe('one OptionsError', () => {
  it('is a TypeError', () => {
    expect(new OptionsError('m', { option: 'x' })).toBeInstanceOf(TypeError);
  });
});

describe('the bearer token', () => {
  const accepted = (token: string) => ({
    rule: isBearerToken(token),
    header: (() => {
      const parsed = parseBearer(`Bearer ${token}`);
      return parsed.kind === 'token' && parsed.token === token;
    })(),
    apiKeys: (() => {
      try {
        return loadConfig({ API_KEYS: token }).apiKeys.join() === token;
      } catch {
        return false;
      }
    })(),
    sandboxClient: (() => {
      try {
        createSandboxClient({ baseUrl: 'http://127.0.0.1:1', apiKey: `sandbox_${token}` });
        return true;
      } catch {
        return false;
      }
    })(),
  });

  it('takes RFC 6750 b64token characters with trailing = only', () => {
    expect(['abc', 'a-._~+/b', 'ab==', 'a=b', 'a b', 'a,b', 'é', ''].map(isBearerToken)).toEqual([true, true, true, false, false, false, false, false]);
  });

  it('the Authorization parse, the API_KEYS check and the sandbox client agree on every token (property)', () => {
    const token = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9\-._~+/]+=*$/),
      fc.string({ minLength: 1 }).filter((t) => t.trim() === t && !t.includes(',')),
    );
    fc.assert(
      fc.property(token, (t) => {
        const seen = accepted(t);
        return seen.header === seen.rule && seen.apiKeys === seen.rule && seen.sandboxClient === seen.rule;
      }),
    );
  });
});
