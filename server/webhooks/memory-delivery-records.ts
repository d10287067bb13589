/**
 * The records of memory delivery, bounded: the entries still waiting or under way (as many as
 * the memory queue holds), and the newest finished ones per state (the last `keepDelivered`
 * delivered, each for at most an hour, and the last `keepDead` dead letters), with the read
 * side the delivery inspector needs.
 */
import type { TraceContext } from '@session-resume-api/runtime/trace-context';
import type { DeadEvent } from './delivery-queue.js';
import { DEFAULT_LIST_LIMIT, KEEP_DELIVERED } from './delivery-queue.js';
import type { DeliveryAttempt, DeliveryInspector, DeliveryRecord, DeliveryState, DeliveryStats } from './delivery-types.js';

/** One event of memory delivery, from `add` until it is trimmed from the finished ones. */
export interface Entry {
  id: string;
  record: DeliveryRecord;
  attemptsMade: number;
  queuedAt: number;
  /** The event's trace context, sent on every attempt. */
  trace?: TraceContext;
  /** When it was delivered or went dead, ms since the epoch. */
  finishedAt?: number;
  reason?: string;
  /** Set when close gave up on the event: its late outcome is ignored. */
  abandoned: boolean;
}

/** How many finished entries are kept per state. */
export interface RecordBounds {
  keepDelivered: number;
  keepDead: number;
}

/** Finished ids per state in the order they finished: the first is the oldest. */
interface Finished {
  delivered: Set<string>;
  dead: Set<string>;
}

/** The inspector's view of the records, plus the dead letters oldest first. */
export type RecordInspector = DeliveryInspector & { listDead(): Promise<DeadEvent[]> };

/** The records of one queue. */
export interface Records {
  /** Every entry kept, by id; insertion order is age order (a finished entry is re-inserted last). */
  entries: Map<string, Entry>;
  done: Finished;
  inspector: RecordInspector;
  /** Drops an entry that will not finish (an attempt failed while closing). */
  forget(entry: Entry): void;
  /** Moves an entry to its final state and trims the finished ones past their bound. */
  finish(entry: Entry, state: 'delivered' | 'dead'): void;
}

/** Creates the bounded records of one memory delivery. */
export function createRecords(bounds: RecordBounds): Records {
  const entries = new Map<string, Entry>();
  const done: Finished = { delivered: new Set<string>(), dead: new Set<string>() };
  return {
    entries,
    done,
    inspector: createRecordInspector(entries, done),
    forget(entry) {
      entries.delete(entry.id);
    },
    finish(entry, state) {
      entry.record.state = state;
      entries.delete(entry.id);
      entries.set(entry.id, entry);
      entry.finishedAt = Date.now();
      done[state].add(entry.id);
      trimFinished(entries, done[state], state === 'delivered' ? bounds.keepDelivered : bounds.keepDead, state === 'delivered' ? entry.finishedAt : undefined);
    },
  };
}

/**
 * Drops the oldest finished ids past `keep`, and (when `now` is given: delivered only) those
 * older than the kept age.
 */
function trimFinished(entries: Map<string, Entry>, ids: Set<string>, keep: number, now: number | undefined): void {
  for (const oldest of ids) {
    const old = entries.get(oldest);
    const expired = now !== undefined && old !== undefined && now - (old.finishedAt ?? 0) > KEEP_DELIVERED.ageSeconds * 1000;
    if (ids.size <= keep && !expired) break;
    ids.delete(oldest);
    entries.delete(oldest);
  }
}

/** The read side: copies, never the live records. */
function createRecordInspector(entries: Map<string, Entry>, done: Finished): RecordInspector {
  /** Newest first. */
  const byState = (state?: DeliveryState) => {
    const ofState = state === 'delivered' || state === 'dead' ? [...done[state]].map((id) => entries.get(id) as Entry) : [...entries.values()];
    return ofState.filter((e) => !state || e.record.state === state).reverse();
  };
  return {
    async show(id) {
      const entry = entries.get(id);
      return entry ? copyRecord(entry.record) : undefined;
    },
    async list({ state, limit = DEFAULT_LIST_LIMIT } = {}) {
      return byState(state)
        .slice(0, limit)
        .map((e) => copyRecord(e.record));
    },
    async stats() {
      const stats: DeliveryStats = { pending: 0, delivering: 0, delivered: 0, dead: 0 };
      for (const entry of entries.values()) stats[entry.record.state]++;
      return stats;
    },
    async listDead() {
      return byState('dead')
        .reverse()
        .map((e) => deadEvent(e));
    },
  };
}

function deadEvent(entry: Entry): DeadEvent {
  return {
    id: entry.id,
    payload: entry.record.event,
    target: entry.record.target,
    attempts: entry.attemptsMade,
    reason: entry.reason ?? '',
    failedAt: new Date(entry.finishedAt ?? Date.now()).toISOString(),
  };
}

function copyRecord(record: DeliveryRecord): DeliveryRecord {
  return { ...record, attempts: record.attempts.map((a: DeliveryAttempt) => ({ ...a })) };
}
