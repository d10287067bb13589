/**
 * Recovery by time of events whose last attempt failed between `since` and `until`: `dead` replays
 * dead letters, `failed` makes waiting retries due now. Idempotent: recovering twice, from any
 * instance, sends once.
 */
import type { SessionEvent } from '@session-resume-api/runtime/types';
import type { DeliveryQueue } from './delivery-queue.js';

/** What `recover` looks for. */
export interface RecoverOptions {
  /** Inclusive: the time of an event's last failed attempt. */
  since: Date;
  /** Exclusive. */
  until: Date;
  /**
   * `dead`: dead letters; `failed`: events waiting for a retry.
   * @defaultValue `'dead'`
   */
  status?: 'failed' | 'dead';
  /**
   * List only: change nothing.
   * @defaultValue `false`
   */
  dryRun?: boolean;
}

/** One event in the window. */
export interface RecoveredEvent {
  id: string;
  payload: SessionEvent;
  /** When its last attempt failed, ISO 8601 UTC. */
  failedAt: string;
  /** False in a dry run, or when another recovery put it back first. */
  requeued: boolean;
}

/** What `recover` found and did (`webhooks recover --json` prints this shape). */
export interface RecoverResult {
  status: 'failed' | 'dead';
  dryRun: boolean;
  /** Events in the window. */
  matched: number;
  /** Events this call put back. */
  requeued: number;
  events: RecoveredEvent[];
}

/** Lists, or puts back, the events of `queue` whose last attempt failed in the window. */
export async function recoverByTime(queue: DeliveryQueue, options: RecoverOptions, delayMs: number): Promise<RecoverResult> {
  const status = options.status ?? 'dead';
  const dryRun = options.dryRun ?? false;
  const [from, to] = [options.since.getTime(), options.until.getTime()];
  const found = status === 'dead' ? await queue.listDead() : await queue.listRetrying();
  const inWindow = found
    .filter((event) => Date.parse(event.failedAt) >= from && Date.parse(event.failedAt) < to)
    .sort((a, b) => a.failedAt.localeCompare(b.failedAt));
  const events: RecoveredEvent[] = [];
  for (const event of inWindow) {
    const requeued = !dryRun && (status === 'dead' ? await queue.replay(event.id, delayMs).catch(() => false) : await queue.promote(event.id));
    events.push({ id: event.id, payload: event.payload, failedAt: event.failedAt, requeued });
  }
  return { status, dryRun, matched: events.length, requeued: events.filter((e) => e.requeued).length, events };
}
