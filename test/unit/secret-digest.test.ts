import fc from 'fast-check';
import { expect, test } from 'vitest';
import { digestsEqual, secretDigest, secretMatches } from '@session-resume-api/runtime/secret-digest';
import { createApiKeyCheck } from '../../server/auth/bearer-auth.js';

test('digestsEqual is string equality for any two strings', () => {
  fc.assert(
    fc.property(fc.string(), fc.string(), (a, b) => {
      expect(digestsEqual(a, b)).toBe(a === b);
      expect(digestsEqual(a, a)).toBe(true);
    }),
  );
});

test('digestsEqual tells apart two strings of one length that differ at any one place', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1, maxLength: 64 }), fc.nat(), (a, at) => {
      const i = at % a.length;
      const b = `${a.slice(0, i)}${String.fromCharCode(a.charCodeAt(i) ^ 1)}${a.slice(i + 1)}`;
      expect(digestsEqual(a, b)).toBe(false);
    }),
  );
});

test('a digest is the secret SHA-256 in lower-case hex; only the secret itself matches it', () => {
  expect(secretDigest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  fc.assert(
    fc.property(fc.string({ minLength: 1 }), fc.string(), (secret, given) => {
      expect(secretMatches(secretDigest(secret), given)).toBe(secret === given);
      expect(secretMatches(secretDigest(secret), secret)).toBe(true);
    }),
  );
});

test('the key check finds the key whatever its place in the list, and its id is the digest prefix', () => {
  const check = createApiKeyCheck(['first-key', 'second-key', 'third-key']);
  expect(check('second-key')).toBe(secretDigest('second-key').slice(0, 16));
  expect(check('third-key')).toBe(secretDigest('third-key').slice(0, 16));
  expect(check('second-ke')).toBeUndefined();
  // Ids scope Idempotency-Keys and label metrics: the first 16 hex digits of the key's SHA-256, as before.
  expect(createApiKeyCheck(['abc'])('abc')).toBe('ba7816bf8f01cfea');
  expect(check('')).toBeUndefined();
});
