/** The handler retry of the receiver stores that schedule their own (memory, Durable Object). Browser-safe. */
import { exponentialDelayMs } from '@session-resume-api/runtime/backoff';
import type { ProcessingOptions } from './store.js';

/** Each retry waits twice the one before, as BullMQ's `exponential` backoff does on the Redis store. */
const HANDLER_BACKOFF_FACTOR = 2;

/**
 * `retryDelayMs × 2^(failedAttempt − 1)`: the wait after failed attempt `failedAttempt` (1-based).
 * @example handlerRetryDelayMs({ retryDelayMs: 1000 }, 3) // 4000
 */
export function handlerRetryDelayMs(options: Pick<ProcessingOptions, 'retryDelayMs'>, failedAttempt: number): number {
  return exponentialDelayMs(failedAttempt, options.retryDelayMs, HANDLER_BACKOFF_FACTOR);
}
