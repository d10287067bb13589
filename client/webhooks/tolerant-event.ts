/**
 * The receiver's check of an incoming event: the spec's SessionEvent schema without its
 * length and pattern bounds (x-decisions: event-field-bounds). The bounds say what our
 * server sends; a real service may send longer values, and a receiver must still take them.
 */
import { contract, formatSchemaErrors, type ValidationResult } from '../../spec/contract.js';
import type { SessionEvent } from '../../spec/types.js';

/** Ajv keywords that only bound a value (its size or spelling), never its type or presence. */
const BOUND_KEYWORDS = new Set(['maxLength', 'pattern', 'maxItems', 'maxProperties', 'maximum', 'exclusiveMaximum']);

/**
 * Validates `value` as a SessionEvent, ignoring failures of the bound keywords: types, required
 * fields and non-empty strings still decide. The contract compiles with `allErrors`, so every
 * failure is listed and a value fails only through structural errors.
 *
 * @example
 * validateEventTolerantly({ event: 'x'.repeat(10_000), session: { id: 's' }, timestamp: 't' }).ok; // true
 */
export function validateEventTolerantly(value: unknown): ValidationResult<SessionEvent> {
  const checked = contract.validate('SessionEvent', value);
  if (checked.ok) return checked;
  const structural = checked.errors.filter((e) => !BOUND_KEYWORDS.has(e.keyword));
  if (structural.length === 0) return { ok: true, value: value as SessionEvent };
  return { ok: false, errors: structural, message: formatSchemaErrors(structural) };
}
