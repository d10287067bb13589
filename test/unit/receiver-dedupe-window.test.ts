/**
 * With a secret, a dedupe window shorter than the signature tolerance would let a captured
 * signed delivery, sent again after the window but while its timestamp still passes, run the
 * handler twice: the receiver refuses such options at creation.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryEventStore, createWebhookReceiver, OptionsError } from '../../client/webhooks/index.js';
import { SIGNATURE_TOLERANCE_SECONDS } from '../../client/webhooks/verify-signature.js';

const secret = `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`;

describe('dedupe window against the signature tolerance', () => {
  it('refuses a window shorter than the tolerance when a secret is set, saying what to set', () => {
    const make = () =>
      createWebhookReceiver({ store: createMemoryEventStore(), onEvent: () => {}, secret, dedupeWindowSeconds: SIGNATURE_TOLERANCE_SECONDS - 1 });
    expect(make).toThrow(OptionsError);
    expect(make).toThrow(expect.objectContaining({ option: 'dedupeWindowSeconds' }));
    expect(make).toThrow(/set dedupeWindowSeconds to at least 300/);
  });

  it('accepts a window equal to the tolerance with a secret, and any positive window without one', async () => {
    const signed = createWebhookReceiver({
      store: createMemoryEventStore(),
      onEvent: () => {},
      secret: [secret],
      dedupeWindowSeconds: SIGNATURE_TOLERANCE_SECONDS,
    });
    const unsigned = createWebhookReceiver({ store: createMemoryEventStore(), onEvent: () => {}, dedupeWindowSeconds: 1 });
    await Promise.all([signed.close(), unsigned.close()]);
  });
});
