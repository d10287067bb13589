/**
 * The records of the memory store. An event being processed, or dead-lettered, is an entry with
 * its payload, found by its id and by its identities. Once handled, it leaves only a compact
 * record for the rest of the dedupe window: its recording id and expiry under the 23-character
 * fields of its identities (identity-field.ts), about 200 bytes instead of the payload.
 */
import type { DeadLetter } from '../store.js';
import type { TraceContext } from '@session-resume-api/runtime/trace-context';
import type { ReceivedEvent } from '../tolerant-event.js';
import { identityField, webhookIdField } from '../identity-field.js';

/** What dedupe needs of a handled event, until `expiresAt`. */
export interface CompactRecord {
  id: string;
  expiresAt: number;
}

/** One recorded event and where its processing stands. */
export interface Entry extends CompactRecord {
  key: string;
  /** The field of its `webhook-id`, when the delivery carried one. */
  webhookField?: string;
  event: ReceivedEvent;
  receivedAt: number;
  attemptsMade: number;
  state: 'queued' | 'active' | 'delayed' | 'done' | 'dead';
  error?: string;
  trace?: TraceContext;
  /** While the entry is queued, running or waiting for a retry: settles when it is done or dead. */
  processing?: { promise: Promise<void>; settle(): void };
}

/**
 * A new recording id: a UUID as one flat string. Node builds `randomUUID()` from about twenty
 * joined pieces, which a record would keep as they are for its whole window (about 400 bytes more).
 */
export const newRecordId = (): string => JSON.parse(JSON.stringify(crypto.randomUUID())) as string;

const isEntry = (record: CompactRecord): record is Entry => 'state' in record;
/** An entry not yet handled nor dead-lettered: its record outlives the window until it is. */
const underWay = (record: CompactRecord) => isEntry(record) && record.state !== 'done' && record.state !== 'dead';

/** The entries by id, every record by its identities' fields, and their sweep. */
export function createMemoryRecords(now: () => number) {
  // Field of an identity (event key or webhook-id) → its entry, or the compact record it left.
  const byField = new Map<string, CompactRecord>();
  // The entries with their payload: under way or dead-lettered.
  const byId = new Map<string, Entry>();
  let compact = 0;
  const live = (record: CompactRecord | undefined, t: number) => (record && (record.expiresAt > t || underWay(record)) ? record : undefined);
  /** Drops an identity's record; a compact one is counted by its event key's field. */
  const drop = (field: string, record: CompactRecord) => {
    byField.delete(field);
    if (!isEntry(record) && field.startsWith('t')) compact -= 1;
  };

  return {
    byId,
    /** Compact records held (handled events within the window). */
    get compactRecords() {
      return compact;
    },
    /** The live entry or compact record with this key or this webhook-id: the event is a duplicate. */
    existing(key: string, webhookId: string | undefined, t: number): CompactRecord | Entry | undefined {
      return live(byField.get(identityField(key)), t) ?? (webhookId === undefined ? undefined : live(byField.get(webhookIdField(webhookId)), t));
    },
    /** Indexes a new entry (by id, key and webhook-id), replacing the expired records of its identities. */
    add(entry: Entry, webhookId: string | undefined): void {
      const fields = [identityField(entry.key)];
      if (webhookId !== undefined) fields.push((entry.webhookField = webhookIdField(webhookId)));
      for (const field of fields) {
        const old = byField.get(field);
        if (old) drop(field, old);
        byField.set(field, entry);
      }
      byId.set(entry.id, entry);
    },
    /** A handled entry leaves its payload: its identities keep one compact record until its expiry. */
    compact(entry: Entry): void {
      byId.delete(entry.id);
      const record: CompactRecord = { id: entry.id, expiresAt: entry.expiresAt };
      const key = identityField(entry.key);
      if (byField.get(key) === entry) {
        byField.set(key, record);
        compact += 1;
      }
      if (entry.webhookField !== undefined && byField.get(entry.webhookField) === entry) byField.set(entry.webhookField, record);
    },
    /** The dead-lettered entries, oldest recording first. */
    deadLetters(): DeadLetter[] {
      return [...byId.values()]
        .filter((e) => e.state === 'dead')
        .sort((a, b) => a.receivedAt - b.receivedAt)
        .map((e) => ({ id: e.id, key: e.key, event: e.event, receivedAt: e.receivedAt, attempts: e.attemptsMade, error: e.error ?? '' }));
    },
    /** Drops the records past their window whose processing is over (dead letters stay listed by id). */
    sweep(): void {
      const t = now();
      for (const [field, record] of byField) if (!live(record, t)) drop(field, record);
    },
  };
}
