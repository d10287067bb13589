/**
 * The compact identities every receiver store keeps for the window: `t` or `w` and 128 bits of the
 * digest in base64url, built without Node's Buffer (the memory and Durable Object stores run on web
 * platforms) and equal to what Buffer makes (the Redis store's records written before stay found).
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { identityField, webhookIdField } from '../../client/webhooks/identity-field.js';

const digest = (text: string) => createHash('sha256').update(text).digest();
const first128 = (bytes: Buffer) => bytes.subarray(0, 16).toString('base64url');

describe('identity fields', () => {
  it("a dedupe key (sha256 hex, either case) keeps its own first 128 bits; any other text its sha256's (fast-check)", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const hex = digest(text).toString('hex');
        expect(identityField(hex)).toBe(`t${first128(digest(text))}`);
        expect(identityField(hex.toUpperCase())).toBe(`t${first128(digest(text))}`);
        expect(identityField(text)).toBe(`t${first128(digest(text))}`);
      }),
    );
  });

  it('a webhook-id keeps the first 128 bits of its sha256, 23 characters whatever its length (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 256 }), (webhookId) => {
        const field = webhookIdField(webhookId);
        expect(field).toBe(`w${first128(digest(webhookId))}`);
        expect(field).toHaveLength(23);
      }),
    );
  });
});
