/**
 * The receiver's header reading (client/webhooks/webhook-headers.ts) and what the signature
 * check makes of it: a repeated header counts as absent, names match in any case, Svix's
 * names are read when the Standard Webhooks ones are absent.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { headerValue, signatureHeaders } from '../../client/webhooks/webhook-headers.js';
import { createSignatureVerifier } from '../../client/webhooks/index.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const body = '{"event":"session.resumed","session":{"id":"sess_1"}}';

function signed(id = 'msg_1') {
  const at = new Date();
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(id, at, body) };
}

describe('headerValue', () => {
  it('reads a record by its lower-case name or in any case, and a Headers object through get', () => {
    expect(headerValue({ 'webhook-id': 'a' }, 'webhook-id')).toBe('a');
    expect(headerValue({ 'Webhook-ID': 'b' }, 'webhook-id')).toBe('b');
    expect(headerValue(new Headers({ 'Webhook-Id': 'c' }), 'webhook-id')).toBe('c');
    expect(headerValue(new Headers(), 'webhook-id')).toBeUndefined();
    expect(headerValue({ other: 'x' }, 'webhook-id')).toBeUndefined();
  });

  it('counts a repeated header (an array) as absent, under either spelling', () => {
    expect(headerValue({ 'webhook-id': ['a', 'b'] }, 'webhook-id')).toBeUndefined();
    expect(headerValue({ 'Webhook-Id': ['a', 'b'] }, 'webhook-id')).toBeUndefined();
    expect(headerValue({ 'webhook-id': ['a'] }, 'webhook-id')).toBeUndefined();
  });

  it("reads Svix's names only when the Standard Webhooks name is absent", () => {
    expect(signatureHeaders({ 'svix-id': 's', 'svix-timestamp': '1', 'svix-signature': 'v1,x' })).toEqual({ id: 's', timestamp: '1', signature: 'v1,x' });
    expect(signatureHeaders({ 'webhook-id': 'w', 'svix-id': 's' }).id).toBe('w');
  });
});

describe('a delivery with duplicated webhook headers', () => {
  const verify = createSignatureVerifier(secret);

  it('is refused as unsigned, naming the repeated header, even when one copy is right', () => {
    const headers = signed();
    expect(verify(body, headers)).toEqual({ ok: true, webhookId: 'msg_1' });
    const twice = { ...headers, 'webhook-signature': [headers['webhook-signature'], headers['webhook-signature']] };
    const verdict = verify(body, twice);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.message).toMatch(/^This receiver accepts signed deliveries only: webhook-signature is required/);
    const ids = { ...headers, 'webhook-id': ['msg_1', 'msg_2'] };
    expect(verify(body, ids)).toMatchObject({ ok: false, message: expect.stringMatching(/webhook-id is required/) });
  });
});

describe('what counts as a Headers object', () => {
  it('one with get and has; a record that has only one of them is read as a record', () => {
    const onlyGet = { get: () => 'from get', 'webhook-id': 'msg_1' } as unknown as Record<string, string>;
    const onlyHas = { has: () => true, 'webhook-id': 'msg_2' } as unknown as Record<string, string>;
    expect(headerValue(onlyGet, 'webhook-id')).toBe('msg_1');
    expect(headerValue(onlyHas, 'webhook-id')).toBe('msg_2');
    expect(headerValue(new Headers({ 'webhook-id': 'msg_3' }), 'webhook-id')).toBe('msg_3');
  });
});
