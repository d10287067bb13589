/**
 * The delivery engine's queue port: in-process for memory (not durable), BullMQ for Redis. The engine
 * decides; a queue only stores, schedules and reports.
 */
import type { NextStep } from '@session-resume-api/runtime/delivery/retry-rules';
import type { TraceContext } from '@session-resume-api/runtime/trace-context';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import type { WebhookMessage } from '../core/webhook-message.js';
import type { DeliveryAttempt, DeliveryInspector, DeliveryState } from './delivery-types.js';

/** One event as the queue hands it to an attempt. */
export interface QueuedEvent {
  /** The webhook-id of every attempt. */
  id: string;
  payload: SessionEvent;
  /** Attempts made before this one (0 for the first, again 0 after a replay). */
  attemptsMade: number;
  /** When the queue took the event, ms since the epoch. */
  queuedAt: number;
  /** The event's trace context, sent on every attempt; absent for an event queued without one. */
  trace?: TraceContext;
  /**
   * When this attempt was due, ms since the epoch: its place in the endpoint's held backlog
   * (x-decisions: endpoint-health); absent when the queue does not know it (the time the
   * attempt was first held is used).
   */
  dueAt?: number;
}

/** What one attempt decided: delivered, another attempt after a delay, or the dead-letter list. */
export interface AttemptOutcome {
  attempt: DeliveryAttempt;
  /** `held_overflow`: the endpoint's held backlog was full, the event went to the dead letters without a request. */
  next: { kind: 'delivered' } | NextStep | { kind: 'dead'; reason: 'held_overflow' };
  /** Why the attempt failed, in words (logged, kept as the dead letter's reason). */
  detail?: string;
  /** The receiver's Retry-After as honoured (on a status that has one), in ms; absent when it sent none. */
  retryAfterMs?: number;
}

/**
 * Held by the endpoint's circuit: no request, no attempt counted (x-decisions: endpoint-health).
 * The event waits in the held backlog at `dueAt` until released, earliest due first; a queue that
 * keeps no place of its own (the in-process one) hands it back after `delayMs` at the latest.
 */
export interface HeldAttempt {
  held: { delayMs: number; dueAt: number };
}

/**
 * The events the endpoint's circuit holds, in the order they were due, wherever the queue keeps
 * them (a sorted set of our own on Redis, shared by every instance; the process in memory).
 */
export interface HeldBacklog {
  /** Events held now. */
  count(): Promise<number>;
  /** Hands back the `count` held events due earliest, earliest first; returns how many it found. */
  release(count: number): Promise<number>;
  /** The circuit held `id` (due at `dueAt`): a backlog that keeps its own order records it; the first `dueAt` stays. */
  held?(id: string, dueAt: number): void;
  /** The circuit admitted `id`: it leaves the backlog's record. */
  admitted?(id: string): void;
}

/** Makes one attempt of one event; never throws for delivery failures. */
export type AttemptHandler = (event: QueuedEvent) => Promise<AttemptOutcome | HeldAttempt>;

/** One event in the dead-letter list (`webhooks dead --json` prints this shape). */
export interface DeadEvent {
  /** The webhook-id, kept by a replay. */
  id: string;
  payload: SessionEvent;
  /** The target's origin when the event failed. */
  target: string;
  attempts: number;
  /** Why the last attempt failed. */
  reason: string;
  /** When it failed for the last time, ISO 8601 UTC. */
  failedAt: string;
}

/** A pending event whose last attempt failed. */
export interface RetryingEvent {
  id: string;
  payload: SessionEvent;
  /** When its last attempt was made, ISO 8601 UTC. */
  failedAt: string;
}

/** A queue the delivery engine runs on. */
export interface DeliveryQueue extends DeliveryInspector {
  /** True when events survive this process (Redis); false for the in-process queue. */
  readonly durable: boolean;
  /** Takes one event, its first attempt after `delayMs`; a second add of the same id is ignored. */
  add(event: WebhookMessage, delayMs: number): Promise<void>;
  /** Starts handing events to `handler`, at most the queue's concurrency at once. */
  start(handler: AttemptHandler): void;
  /** Events that ran out of attempts or got 410, oldest first. */
  listDead(): Promise<DeadEvent[]>;
  /** Puts one dead event back with a fresh schedule and the same webhook-id; false when there is none. */
  replay(id: string, delayMs: number): Promise<boolean>;
  /** Pending events whose last attempt failed, waiting for their next one. */
  listRetrying(): Promise<RetryingEvent[]>;
  /** Makes a waiting event's next attempt due now; false when it is not waiting for one. */
  promote(id: string): Promise<boolean>;
  /** Stops taking work and lets attempts under way finish, at most `timeoutMs`. */
  close(timeoutMs: number): Promise<void>;
}

/** States listed by `list` when none is asked for, in the order shown. */
export const DELIVERY_STATES: readonly DeliveryState[] = ['pending', 'delivering', 'delivered', 'dead'];

/** The default of `list`'s `limit`. */
export const DEFAULT_LIST_LIMIT = 20;

/** How many delivered events keep their history, and for how long (x-decisions: webhook-outbox). */
export const KEEP_DELIVERED = Object.freeze({ count: 1000, ageSeconds: 3600 });

/** How many dead letters are kept; past it the oldest goes (x-decisions: webhook-outbox). */
export const KEEP_DEAD = 10_000;

/**
 * Attempts in flight per instance when `WEBHOOK_CONCURRENCY` is unset: as many as the delivery bench's
 * plain client (50), since a receiver answering in L s gets at most concurrency ÷ L events/s per
 * instance. Each holds one kept connection.
 */
export const DEFAULT_CONCURRENCY = 50;

/** The response text kept per attempt, in bytes. */
export const RESPONSE_KEEP_BYTES = 1024;

/** Waits for `work`, at most `ms`. */
export async function withTimeout(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
