/**
 * What the Worker side of the Durable Object store asks its object, and what it answers: JSON
 * over the object's `fetch`, so that the exported class needs no `cloudflare:workers` import and
 * the package bundles for any platform.
 */
import type { RecordedEvent, SessionPosition } from '../store.js';
import type { ReceivedEvent } from '../tolerant-event.js';

/** Records an event, and claims it and up to `sweepLimit` others that are due for this caller. */
export interface RecordCall {
  op: 'record';
  key: string;
  event: ReceivedEvent;
  webhookId?: string;
  windowMs: number;
  leaseMs: number;
  /** Epoch ms after which the caller has given up: a later arrival writes nothing. */
  deadline: number;
  maxEvents: number;
  /** Compact records of handled events the object holds at most; absent from an earlier version's Worker. */
  maxRecords?: number;
  sweepLimit: number;
}

/** The end of one attempt: success, a retry after `retryDelayMs`, or a dead letter. */
export interface FinishCall {
  op: 'finish';
  id: string;
  attempt: number;
  ok: boolean;
  error?: string;
  final?: boolean;
  retryDelayMs?: number;
}

export type StoreCall =
  | RecordCall
  | FinishCall
  | { op: 'claim'; id: string; leaseMs: number }
  | { op: 'deadLetters' }
  | { op: 'retry'; id: string }
  | { op: 'advance'; position: SessionPosition; windowMs: number };

/** The answer to `record`; `late` and `full` mean nothing was written. */
export type RecordAnswer = { late: true } | { full: true; records?: true } | { id: string; duplicate: boolean; claimed: RecordedEvent[] };
