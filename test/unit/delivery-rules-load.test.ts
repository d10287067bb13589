/**
 * The delivery rules module computes its profile fields and default profile when it loads: a
 * mistake there fails this test (imported inside it) instead of failing every importer's load.
 */
import { describe, expect, it } from 'vitest';

describe('delivery-rules, as it loads', () => {
  it('derives one profile field per fault of the list, each with its rule, and the default profile from them', async () => {
    const { DEFAULT_DELIVERY_PROFILE, PROFILE_FAULTS } = await import('@session-resume-api/runtime/delivery/delivery-rules');
    expect(PROFILE_FAULTS.map((f) => `${f.field} (${f.rule})`)).toEqual([
      'retryScheduleMs (ack)',
      'duplicateRate (duplicate-again)',
      'duplicateDelayMs (duplicate-after-delay)',
      'concurrentCopies (duplicate-concurrent)',
      'delayMs (late-event)',
      'jitterMs (late-event)',
      'outOfOrderRate (out-of-order)',
    ]);
    expect(DEFAULT_DELIVERY_PROFILE).toEqual({ duplicateRate: 0, duplicateDelayMs: 0, concurrentCopies: 1, delayMs: 0, jitterMs: 0, outOfOrderRate: 0 });
  });
});
