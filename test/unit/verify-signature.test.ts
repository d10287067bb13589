/**
 * The Standard Webhooks verify core, judged by the `standardwebhooks` package's own `sign`:
 * tampered body, wrong secret, stale or future timestamp, missing headers, rotation.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createSignatureVerifier, OptionsError } from '../../client/webhooks/index.js';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({ event: 'session.resumed', session: { id: 'sess_1' }, timestamp: '2026-11-21T16:00:00.000Z' });

function signed(secret: string, payload = body, at = new Date(), id = `msg_${randomBytes(8).toString('hex')}`) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, payload),
  };
}

describe('createSignatureVerifier', () => {
  const secret = newSecret();
  const verify = createSignatureVerifier(secret);

  it("accepts a delivery signed by standardwebhooks' own sign, and gives its webhook-id", () => {
    const headers = signed(secret);
    expect(verify(body, headers)).toEqual({ ok: true, webhookId: headers['webhook-id'] });
  });

  it('refuses a tampered body, a wrong secret and a forged signature', () => {
    const headers = signed(secret);
    expect(verify(body.replace('sess_1', 'sess_2'), headers)).toMatchObject({ ok: false, message: expect.stringMatching(/does not match/) });
    expect(verify(body, signed(newSecret()))).toMatchObject({ ok: false });
    expect(verify(body, { ...headers, 'webhook-signature': 'v1,AAAA' })).toMatchObject({ ok: false });
    expect(verify(body, { ...headers, 'webhook-id': 'another' })).toMatchObject({ ok: false });
  });

  it('refuses a timestamp more than 5 minutes old or ahead, even with a valid signature', () => {
    const old = signed(secret, body, new Date(Date.now() - 6 * 60_000));
    expect(verify(body, old)).toMatchObject({ ok: false, message: expect.stringMatching(/outside the tolerance: more than 5 minutes/) });
    const ahead = signed(secret, body, new Date(Date.now() + 6 * 60_000));
    expect(verify(body, ahead)).toMatchObject({ ok: false, message: expect.stringMatching(/outside the tolerance: more than 5 minutes/) });
    expect(verify(body, signed(secret, body, new Date(Date.now() - 4 * 60_000)))).toMatchObject({ ok: true });
  });

  it('refuses missing headers and a header given twice', () => {
    const headers = signed(secret);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _gone, ...rest } = headers;
      expect(verify(body, rest)).toMatchObject({ ok: false, message: expect.stringMatching(/required/) });
    }
    expect(verify(body, { ...headers, 'webhook-signature': [headers['webhook-signature'], 'v1,x'] })).toMatchObject({ ok: false });
  });

  it('rotation: with two secrets a delivery signed with either passes, with a third it does not', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const both = createSignatureVerifier([current, previous]);
    expect(both(body, signed(current))).toMatchObject({ ok: true });
    expect(both(body, signed(previous))).toMatchObject({ ok: true });
    expect(both(body, signed(newSecret()))).toMatchObject({ ok: false });
    // A sender signing with both during its own rotation: several space-separated signatures.
    const a = signed(newSecret());
    const b = signed(previous, body, new Date(Number(a['webhook-timestamp']) * 1000), a['webhook-id']);
    expect(both(body, { ...a, 'webhook-signature': `${a['webhook-signature']} ${b['webhook-signature']}` })).toMatchObject({ ok: true });
  });

  it('refuses a secret that is not whsec_ + base64, with OptionsError', () => {
    expect(() => createSignatureVerifier('plain-text')).toThrow(OptionsError);
    expect(() => createSignatureVerifier('whsec_')).toThrow(/whsec_/);
    expect(() => createSignatureVerifier([])).toThrow(OptionsError);
    expect(() => createSignatureVerifier([secret, 'nope'])).toThrow(/secret\[1\]/);
  });
});
