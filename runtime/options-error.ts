/**
 * One typed error for a bad option given to a factory of the client package (and anyone else
 * who wants it), with the few checks every factory repeats. Options are checked once, at
 * creation, so a mistake fails at start-up with a message naming the option and the rule.
 */

/**
 * A factory was given an option it cannot work with. `message` names the factory, the option
 * and the rule, e.g. `createRedisEventStore: concurrency must be an integer from 1 to 1000 (got 0)`.
 *
 * @example
 * try {
 *   createMemoryEventStore({ concurrency: 0 });
 * } catch (error) {
 *   if (error instanceof OptionsError) console.error(error.message);
 * }
 */
export class OptionsError extends TypeError {
  override name = 'OptionsError';
}

/** Inclusive bounds for `checkInteger`. */
export interface IntegerBounds {
  /** Smallest accepted value (default Number.MIN_SAFE_INTEGER). */
  min?: number;
  /** Largest accepted value (default Number.MAX_SAFE_INTEGER). */
  max?: number;
}

const shown = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : String(value));

/** Throws `OptionsError(message)` unless `condition` holds. */
export function checkOption(condition: unknown, message: string): asserts condition {
  if (!condition) throw new OptionsError(message);
}

/**
 * Throws `OptionsError` unless `value` is a safe integer within `bounds`.
 *
 * @param name - what the message calls the option, with its factory: `'createX: concurrency'`
 * @param value - the value given
 * @param bounds - inclusive limits
 * @example
 * checkInteger('createMemoryEventStore: concurrency', options.concurrency, { min: 1 });
 */
export function checkInteger(name: string, value: unknown, bounds: IntegerBounds = {}): asserts value is number {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max) return;
  const range =
    max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : min === Number.MIN_SAFE_INTEGER ? `an integer ≤ ${max}` : `an integer from ${min} to ${max}`;
  throw new OptionsError(`${name} must be ${range} (got ${shown(value)})`);
}
