/** The commander parser of every whole-number flag of the CLI, over the shared integer rule. */
import { InvalidArgumentError } from 'commander';
import { parseWholeNumber, type IntegerBounds } from '@session-resume-api/runtime/options-error';

/**
 * A commander argument parser for a whole number within `bounds`; anything else is a usage error
 * (exit 2) that states the range.
 * @example new Option('--times <n>').argParser(wholeNumberArgument({ min: 1, max: 100_000 }))
 */
export function wholeNumberArgument(bounds: IntegerBounds = {}): (value: string) => number {
  const range =
    bounds.min !== undefined && bounds.max !== undefined ? ` from ${bounds.min} to ${bounds.max}` : bounds.min !== undefined ? ` ≥ ${bounds.min}` : '';
  return (value) => {
    const n = parseWholeNumber(value, bounds);
    if (n === undefined) throw new InvalidArgumentError(`expected a whole number${range}.`);
    return n;
  };
}
