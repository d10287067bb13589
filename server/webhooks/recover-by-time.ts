/**
 * Recovery by time of events whose last attempt failed between `since` and `until`: `dead` replays
 * dead letters, `failed` makes waiting retries due now. Idempotent: recovering twice, from any
 * instance, sends once.
 */
import type { SessionEvent } from '@session-resume-api/runtime/types';
import { dedupeWindowAge, type DedupeWindowAge } from './dedupe-window-age.js';
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
  /** False in a dry run, when another recovery put it back first, or when the queue refused it (`error`). */
  requeued: boolean;
  /** Why the queue could not put it back (its error's message); absent when it did, or had nothing to do. */
  error?: string;
}

/** What `recover` found and did (`webhooks recover --json` prints this shape). */
export interface RecoverResult {
  status: 'failed' | 'dead';
  dryRun: boolean;
  /** Events in the window. */
  matched: number;
  /** Events this call put back. */
  requeued: number;
  /** Events the queue could not put back, each with its `error`. */
  failed: number;
  /** How many of the events in the window are older than the receivers' dedupe window. */
  dedupeWindow: DedupeWindowAge;
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
  const dedupeWindow = dedupeWindowAge(
    inWindow.map((event) => event.payload),
    Date.now(),
  );
  const events: RecoveredEvent[] = [];
  for (const event of inWindow) {
    const found = { id: event.id, payload: event.payload, failedAt: event.failedAt };
    if (dryRun) events.push({ ...found, requeued: false });
    else events.push({ ...found, ...(await requeue(queue, status, event.id, delayMs)) });
  }
  const count = (test: (e: RecoveredEvent) => boolean) => events.filter(test).length;
  return { status, dryRun, matched: events.length, requeued: count((e) => e.requeued), failed: count((e) => e.error !== undefined), dedupeWindow, events };
}

/** Puts one event back; a queue that fails is reported with the event, and the others still go. */
async function requeue(queue: DeliveryQueue, status: 'failed' | 'dead', id: string, delayMs: number): Promise<{ requeued: boolean; error?: string }> {
  try {
    return { requeued: status === 'dead' ? await queue.replay(id, delayMs) : await queue.promote(id) };
  } catch (error) {
    return { requeued: false, error: error instanceof Error ? error.message : String(error) };
  }
}
