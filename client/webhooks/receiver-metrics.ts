/** What a receiver counts, as an interface any metrics library can implement; nothing here loads one. */
import type { ReceiveResult } from './answers.js';

/** Label values of `session_resume_receiver_events_total{result}`. */
export type ReceiverEventResult = 'new' | 'duplicate' | 'invalid' | 'unauthorized' | 'unavailable';
/** Label values of `session_resume_receiver_handler_runs_total{result}`. */
export type HandlerRunResult = 'ok' | 'failed' | 'stale';

/** The `metrics` option. */
export interface ReceiverMetrics {
  /** One answer of `receive` (and so of `handler`, `fetch` and `answer`). */
  answered(result: ReceiveResult): void;
  /** One run of `onEvent`, or a stale event kept from it (`order: 'per-session'`). */
  handlerRan(result: HandlerRunResult): void;
}

/** The event result of one answer; undefined for the probe, which is acknowledged and never recorded. */
export function eventResultOf(result: ReceiveResult): ReceiverEventResult | undefined {
  if (result.status === 200) return 'probe' in result.body ? undefined : result.body.duplicate ? 'duplicate' : 'new';
  if (result.status === 401) return 'unauthorized';
  if (result.status === 503) return 'unavailable';
  return 'invalid';
}

/** Whether `value` has the two methods of `ReceiverMetrics` (checked at creation). */
export function isReceiverMetrics(value: unknown): value is ReceiverMetrics {
  const metrics = value as Partial<ReceiverMetrics> | null;
  return typeof metrics?.answered === 'function' && typeof metrics.handlerRan === 'function';
}
