import { describe, expect, it } from 'vitest';
import { createApiKeyCheck, parseBearer, wwwAuthenticate } from '../../../server/auth/bearer-auth.js';

describe('parseBearer', () => {
  it('reads the token with any case of the scheme name (RFC 7235 §2.1)', () => {
    for (const header of ['Bearer abc', 'bearer abc', 'BEARER abc', '  Bearer   abc  ']) {
      expect(parseBearer(header)).toEqual({ kind: 'token', token: 'abc' });
    }
  });
  it('tells missing from malformed', () => {
    expect(parseBearer(undefined)).toEqual({ kind: 'missing' });
    expect(parseBearer('')).toEqual({ kind: 'missing' });
    for (const header of ['Basic abc', 'Bearer', 'Bearer ', 'Bearerabc', 'Bearer a b', 'Bearer ä']) {
      expect(parseBearer(header)).toEqual({ kind: 'malformed' });
    }
  });
  it('adds error="invalid_token" only when a token was sent (RFC 6750 §3.1)', () => {
    expect(wwwAuthenticate({ kind: 'missing' })).toBe('Bearer realm="session-resume-api"');
    expect(wwwAuthenticate({ kind: 'malformed' })).toBe('Bearer realm="session-resume-api"');
    expect(wwwAuthenticate({ kind: 'token', token: 'x' })).toBe('Bearer realm="session-resume-api", error="invalid_token"');
  });
});

describe('createApiKeyCheck', () => {
  const check = createApiKeyCheck(['key-one', 'key-two']);
  it('accepts each configured key and names it by a stable id that is not the key', () => {
    const one = check('key-one');
    const two = check('key-two');
    expect(one).toMatch(/^[0-9a-f]{16}$/);
    expect(two).toMatch(/^[0-9a-f]{16}$/);
    expect(one).not.toBe(two);
    expect(check('key-one')).toBe(one);
  });
  it('refuses prefixes, extensions and case changes of a key', () => {
    for (const token of ['key-on', 'key-one1', 'KEY-ONE', '', 'key-three']) expect(check(token)).toBeUndefined();
  });
  it('refuses to be built without keys', () => {
    expect(() => createApiKeyCheck([])).toThrow(TypeError);
  });
});
