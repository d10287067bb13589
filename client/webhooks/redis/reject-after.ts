/** A bounded wait for Redis: past it the answer is "unknown", never "not applied". */
import { StoreUnavailableError } from '../store.js';

/**
 * Rejects with StoreUnavailableError when `promise` does not settle within `ms`. The command
 * behind `promise` may still run later: a caller that must not act on a late run says so to
 * Redis itself (the record script's deadline).
 */
export function rejectAfterMs<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`Redis did not answer ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
