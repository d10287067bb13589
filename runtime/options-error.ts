/** The one typed error for a bad factory option, checked at creation so a mistake fails at start-up naming the option and the rule. */

/** Options of `OptionsError`. */
export interface OptionsErrorOptions {
  /**
   * The option at fault, as the factory names it, e.g. `'dedupeWindowSeconds'`.
   * @defaultValue none: the error names no option
   */
  option?: string;
  /**
   * The underlying failure, when a check of another library refused the value.
   * @defaultValue none: no `cause`
   */
  cause?: unknown;
}

/**
 * A factory was given an option it cannot work with; `message` names the factory, the option and the rule.
 * @example if (error instanceof OptionsError) console.error(error.option, error.message); // 'concurrency', …
 */
export class OptionsError extends TypeError {
  override name = 'OptionsError';
  /** The option at fault, when the factory names one. */
  readonly option: string | undefined;

  constructor(message: string, options: OptionsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.option = options.option;
  }
}

/** Inclusive bounds of an integer option. */
export interface IntegerBounds {
  /**
   * Smallest accepted value.
   * @defaultValue `Number.MIN_SAFE_INTEGER`
   */
  min?: number;
  /**
   * Largest accepted value.
   * @defaultValue `Number.MAX_SAFE_INTEGER`
   */
  max?: number;
}

/**
 * A safe integer within the inclusive `bounds`: the one integer rule of both packages.
 * @example isIntegerIn(1.5, { min: 1 }) // false
 */
export function isIntegerIn(value: unknown, bounds: IntegerBounds = {}): value is number {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}

/**
 * Decimal digits only (no sign, point, exponent or spaces) within `bounds`, else undefined; for settings and flags, which arrive as text.
 * @example parseWholeNumber('8080', { min: 0, max: 65_535 }) // 8080; parseWholeNumber('1e3') // undefined
 */
export function parseWholeNumber(text: string, bounds: IntegerBounds = {}): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return isIntegerIn(value, bounds) ? value : undefined;
}

const shown = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : String(value));

/** Throws `OptionsError(message)` unless `condition` holds; `option` names the option at fault. */
export function checkOption(condition: unknown, message: string, option?: string): asserts condition {
  if (!condition) throw new OptionsError(message, { option });
}

/**
 * Throws `OptionsError` unless `value` is a safe integer within `bounds`; `name` is `'createX: option'`.
 * @example checkInteger('createMemoryEventStore: concurrency', options.concurrency, { min: 1 });
 */
export function checkInteger(name: string, value: unknown, bounds: IntegerBounds = {}): asserts value is number {
  if (isIntegerIn(value, bounds)) return;
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds;
  const range =
    max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : min === Number.MIN_SAFE_INTEGER ? `an integer ≤ ${max}` : `an integer from ${min} to ${max}`;
  throw new OptionsError(`${name} must be ${range} (got ${shown(value)})`, { option: name.slice(name.lastIndexOf(': ') + 1).trim() });
}
