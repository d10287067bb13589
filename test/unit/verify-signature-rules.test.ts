/**
 * The signature check's own rules (client/webhooks/verify-signature.ts): the timestamp's form
 * and its 5-minute edge, the tolerance read from the spec and nowhere else (a verifier given 10
 * minutes accepts what one given 5 refuses, and calls it a timestamp outside the tolerance), the
 * comparison of each signature, which headers a refusal names, and how a bad secret in a list is named.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { createSignatureVerifier, OptionsError } from '../../client/webhooks/index.js';
import { createVerifierWithTolerance } from '../../client/webhooks/verify-signature.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const body = '{"event":"session.resumed","session":{"id":"sess_1"}}';
const STALE = "The webhook-timestamp is outside the tolerance: more than 5 minutes from this receiver's clock (a replay, or a clock out of sync).";

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

describe("the tolerance is the one given, not the signing library's 5 minutes", () => {
  it('accepts an 8-minute-old signature at 10 minutes, refuses it at 5 as a timestamp outside the tolerance', () => {
    const eightMinutesOld = signedAt(nowSeconds() - 8 * 60);
    expect(createVerifierWithTolerance(secret, 600_000)(body, eightMinutesOld)).toEqual({ ok: true, webhookId: 'msg_1' });
    expect(createVerifierWithTolerance(secret, 300_000)(body, eightMinutesOld)).toEqual({ ok: false, message: STALE });
    expect(createVerifierWithTolerance(secret, 600_000)(body, signedAt(nowSeconds() + 8 * 60))).toEqual({ ok: true, webhookId: 'msg_1' });
    expect(createVerifierWithTolerance(secret, 600_000)(body, signedAt(nowSeconds() - 11 * 60))).toEqual({
      ok: false,
      message: "The webhook-timestamp is outside the tolerance: more than 10 minutes from this receiver's clock (a replay, or a clock out of sync).",
    });
  });

  it("the kit's verifier uses x-delivery-policy signature.toleranceMs", () => {
    const toleranceSeconds = WEBHOOK_DELIVERY_POLICY.signature.toleranceMs / 1000;
    expect(createSignatureVerifier(secret)(body, signedAt(nowSeconds() - toleranceSeconds + 1))).toEqual({ ok: true, webhookId: 'msg_1' });
    expect(createSignatureVerifier(secret)(body, signedAt(nowSeconds() - toleranceSeconds - 1))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^The webhook-timestamp is outside the tolerance/),
    });
  });
});

describe('createSignatureVerifier: the signatures compared', () => {
  const verify = createSignatureVerifier(secret);
  const now = nowSeconds();
  const good = signedAt(now)['webhook-signature'];
  const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);

  it('refuses a signature one character off, first, middle or last, and one a character shorter or longer', () => {
    for (const bad of [flip(good, 3), flip(good, 20), flip(good, good.length - 1), good.slice(0, -1), `${good}A`, `v2${good.slice(2)}`]) {
      expect(verify(body, { ...signedAt(now), 'webhook-signature': bad }), bad).toMatchObject({ ok: false, message: expect.stringMatching(/does not match/) });
    }
  });

  it('takes any of several space-separated signatures, in any place', () => {
    expect(verify(body, { ...signedAt(now), 'webhook-signature': `v1,AAAA ${good}` })).toEqual({ ok: true, webhookId: 'msg_1' });
    expect(verify(body, { ...signedAt(now), 'webhook-signature': `${good} v1,AAAA` })).toEqual({ ok: true, webhookId: 'msg_1' });
  });

  it("signs at the delivery's own timestamp: a signature made a second earlier does not match", () => {
    expect(verify(body, { ...signedAt(now), 'webhook-signature': signedAt(now - 1)['webhook-signature'] })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/does not match/),
    });
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
    expect(message(without('webhook-id'))).toMatch(
      /^This receiver accepts signed deliveries only: webhook-id is required \(webhook-id, webhook-timestamp and webhook-signature, or their svix- names\)\.$/,
    );
    expect(message(without('webhook-id', 'webhook-signature'))).toMatch(/: webhook-id and webhook-signature are required/);
    expect(message({})).toMatch(/: webhook-id, webhook-timestamp and webhook-signature are required/);
  });

  it('says no secret matches when the signature is wrong', () => {
    const other = createSignatureVerifier([`whsec_${randomBytes(32).toString('base64')}`, `whsec_${randomBytes(32).toString('base64')}`]);
    expect(other(body, signedAt(nowSeconds()))).toEqual({
      ok: false,
      message: 'The webhook-signature does not match the body with any secret of this receiver.',
    });
  });

  it('names a bad secret by its place in a list, and a lone one as secret', () => {
    expect(() => createSignatureVerifier([secret, 'whsec_!!'])).toThrow(/^createWebhookReceiver: secret\[1\] /);
    expect(() => createSignatureVerifier('whsec_!!')).toThrow(/^createWebhookReceiver: secret /);
    expect(() => createSignatureVerifier([])).toThrow(OptionsError);
    expect(() => createSignatureVerifier([])).toThrow(/^createWebhookReceiver: secret must be one string or a non-empty list, each whsec_ followed by/);
    expect(() => createSignatureVerifier([])).toThrow(expect.objectContaining({ option: 'secret' }));
  });
});
