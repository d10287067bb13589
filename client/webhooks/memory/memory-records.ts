/**
 * The records of the memory store: one entry per recorded event, found by its dedupe key, by
 * the sender's `webhook-id` and by its id; expired entries leave on a sweep.
 */
import type { DeadLetter } from '../store.js';
import type { TraceContext } from '@session-resume-api/runtime/trace-context';
import type { ReceivedEvent } from '../tolerant-event.js';

/** One recorded event and where its processing stands. */
export interface Entry {
  id: string;
  key: string;
  event: ReceivedEvent;
  receivedAt: number;
  expiresAt: number;
  attemptsMade: number;
  state: 'queued' | 'active' | 'delayed' | 'done' | 'dead';
  error?: string;
  trace?: TraceContext;
  /** While the entry is queued, running or waiting for a retry: settles when it is done or dead. */
  processing?: { promise: Promise<void>; settle(): void };
}

/** The three indexes of the entries and their sweep. */
export function createMemoryRecords(now: () => number) {
  const byKey = new Map<string, Entry>();
  // webhook-id (Standard Webhooks) → the entry first recorded under it.
  const byWebhookId = new Map<string, Entry>();
  const byId = new Map<string, Entry>();
  const live = (entry: Entry | undefined, t: number) => (entry && entry.expiresAt > t ? entry : undefined);

  return {
    byId,
    /** The live entry with this key or this webhook-id: the event is a duplicate. */
    existing(key: string, webhookId: string | undefined, t: number): Entry | undefined {
      return live(byKey.get(key), t) ?? (webhookId === undefined ? undefined : live(byWebhookId.get(webhookId), t));
    },
    add(entry: Entry, webhookId: string | undefined): void {
      const stale = byKey.get(entry.key);
      if (stale?.state === 'done') byId.delete(stale.id);
      byKey.set(entry.key, entry);
      if (webhookId !== undefined) byWebhookId.set(webhookId, entry);
      byId.set(entry.id, entry);
    },
    /** The dead-lettered entries, oldest recording first. */
    deadLetters(): DeadLetter[] {
      return [...byId.values()]
        .filter((e) => e.state === 'dead')
        .sort((a, b) => a.receivedAt - b.receivedAt)
        .map((e) => ({ id: e.id, key: e.key, event: e.event, receivedAt: e.receivedAt, attempts: e.attemptsMade, error: e.error ?? '' }));
    },
    /** Drops entries past their window whose processing is over (dead letters stay listed by id). */
    sweep(): void {
      const t = now();
      for (const [key, entry] of byKey) {
        if (entry.expiresAt <= t && (entry.state === 'done' || entry.state === 'dead')) {
          byKey.delete(key);
          if (entry.state === 'done') byId.delete(entry.id);
        }
      }
      for (const [webhookId, entry] of byWebhookId) if (entry.expiresAt <= t) byWebhookId.delete(webhookId);
    },
  };
}
