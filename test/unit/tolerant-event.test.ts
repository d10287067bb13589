/**
 * The receiver kit takes session events beyond the spec's length bounds
 * (x-decisions: event-field-bounds): bounds describe what our server sends, not what a
 * receiver accepts from the real service. Types and required fields still decide.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateEventTolerantly } from '../../client/webhooks/tolerant-event.js';
import { contract } from '../../spec/contract.js';

describe('validateEventTolerantly', () => {
  it('accepts fields far beyond the bounds that the strict schema refuses', () => {
    const event = { event: 'e'.repeat(10_000), session: { id: `${'i'.repeat(5_000)}\n` }, timestamp: 't'.repeat(1_000) };
    expect(contract.validate('SessionEvent', event).ok).toBe(false);
    expect(validateEventTolerantly(event)).toEqual({ ok: true, value: event });
  });

  it.each([
    [{ session: { id: 's' }, timestamp: 't'.repeat(100) }, "must have required property 'event'"],
    [{ event: 'e'.repeat(300), session: {}, timestamp: 't' }, "/session must have required property 'id'"],
    [{ event: 'e', session: { id: 's' }, timestamp: '' }, '/timestamp must NOT have fewer than 1 characters'],
    [{ event: 'e'.repeat(300), session: { id: 7 }, timestamp: 't' }, '/session/id must be string'],
  ])('still refuses %j, naming only the structural problem', (payload, message) => {
    const result = validateEventTolerantly(payload);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toContain(message);
      expect(result.message).not.toMatch(/NOT have more than|must match pattern/);
    }
  });

  it('property: any non-empty strings of any length pass', () => {
    const text = fc.string({ minLength: 1, maxLength: 2_000 });
    fc.assert(
      fc.property(text, text, text, (event, id, timestamp) => validateEventTolerantly({ event, session: { id }, timestamp }).ok),
      { numRuns: 200 },
    );
  });
});
