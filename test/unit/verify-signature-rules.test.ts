/**
 * The signature check's own rules (client/webhooks/verify-signature.ts): the timestamp's form
 * and its 5-minute edge, which headers a refusal names, and how a bad secret in a list is named.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createSignatureVerifier, OptionsError } from '../../client/webhooks/index.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const body = '{"event":"session.resumed","session":{"id":"sess_1"}}';
const STALE = "The webhook-timestamp is not within 5 minutes of this receiver's clock (a replay, or a clock out of sync).";

function signedAt(seconds: number, timestamp = String(seconds)) {
  return { 'webhook-id': 'msg_1', 'webhook-timestamp': timestamp, 'webhook-signature': new Webhook(secret).sign('msg_1', new Date(seconds * 1000), body) };
}
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('createSignatureVerifier: the timestamp', () => {
  const verify = createSignatureVerifier(secret);

  it('accepts 5 minutes away (minus a second for the clock moving) and refuses 5 minutes and a second', () => {
    expect(verify(body, signedAt(nowSeconds() - 299))).toEqual({ ok: true, webhookId: 'msg_1' });
    expect(verify(body, signedAt(nowSeconds() - 301))).toEqual({ ok: false, message: STALE });
    expect(verify(body, signedAt(nowSeconds() + 301))).toEqual({ ok: false, message: STALE });
  });

  it('refuses a timestamp that is not whole seconds in digits as out of tolerance', () => {
    const now = nowSeconds();
    for (const bad of [`${now}.0`, `+${now}`, ` ${now}x`, `x${now}`, `${now}000000000000`]) {
      expect(verify(body, { ...signedAt(now), 'webhook-timestamp': bad }), bad).toEqual({ ok: false, message: STALE });
    }
  });
});

describe('createSignatureVerifier: refusals', () => {
  const verify = createSignatureVerifier(secret);

  it('names the missing headers, one or several', () => {
    const all = signedAt(nowSeconds());
    const without = (...names: string[]) => Object.fromEntries(Object.entries(all).filter(([name]) => !names.includes(name)));
    const message = (headers: Record<string, string>) => {
      const verdict = verify(body, headers);
      return verdict.ok ? 'ok' : verdict.message;
    };
    expect(message(without('webhook-id'))).toMatch(/^This receiver accepts signed deliveries only: webhook-id is required \(webhook-id, webhook-timestamp and webhook-signature, or their svix- names\)\.$/);
    expect(message(without('webhook-id', 'webhook-signature'))).toMatch(/: webhook-id and webhook-signature are required/);
    expect(message({})).toMatch(/: webhook-id, webhook-timestamp and webhook-signature are required/);
  });

  it('says no secret matches when the signature is wrong', () => {
    const other = createSignatureVerifier([`whsec_${randomBytes(32).toString('base64')}`, `whsec_${randomBytes(32).toString('base64')}`]);
    expect(other(body, signedAt(nowSeconds()))).toEqual({ ok: false, message: 'The webhook-signature does not match the body with any secret of this receiver.' });
  });

  it('names a bad secret by its place in a list, and a lone one as secret', () => {
    expect(() => createSignatureVerifier([secret, 'whsec_!!'])).toThrow(/^createWebhookReceiver: secret\[1\] /);
    expect(() => createSignatureVerifier('whsec_!!')).toThrow(/^createWebhookReceiver: secret /);
    expect(() => createSignatureVerifier([])).toThrow(OptionsError);
    expect(() => createSignatureVerifier([])).toThrow(/^createWebhookReceiver: secret must be one string or a non-empty list, each whsec_ followed by/);
    expect(() => createSignatureVerifier([])).toThrow(expect.objectContaining({ option: 'secret' }));
  });
});
