/**
 * The role every receiver store plays (receivers dedupe and answer only once the event is durable): record an event durably
 * and say whether it was seen before, then run the processing of recorded events with
 * retries and dead letters. Implementations: `createMemoryEventStore` (this subpath) and
 * `createRedisEventStore` (`session-resume-api/webhooks/redis`).
 */
import type { TraceContext } from '@session-resume-api/runtime/trace-context';
import type { ReceivedEvent } from './tolerant-event.js';

/** One recorded event as handed to the processor. */
export interface RecordedEvent {
  /** Store-assigned id of this recording (a dead letter is retried by this id). */
  id: string;
  /** The dedupe key (`dedupeKey`): sha256 hex of event, session id and timestamp as sent, or of the canonical body when one of them is absent. */
  key: string;
  /** The payload as received, normalized (x-decisions: event-payload-forms). */
  event: ReceivedEvent;
  /** When the event was recorded, epoch milliseconds. */
  receivedAt: number;
  /** 1 for the first processing attempt, 2 for the first retry, ... */
  attempt: number;
  /** The delivery's W3C trace context (`traceparent`, `tracestate`), when it carried a valid one. */
  trace?: TraceContext;
}

/** An event whose processing failed `maxAttempts` times; kept until retried or removed. */
export interface DeadLetter extends Omit<RecordedEvent, 'attempt'> {
  /** Processing attempts made. */
  attempts: number;
  /** Message of the last error. */
  error: string;
}

/** Outcome of `record`: `duplicate` is true when the key was recorded within the window. */
export interface RecordOutcome {
  id: string;
  duplicate: boolean;
  /**
   * Settles (never rejects) when the processing this instance runs for the event is over:
   * handled, dead-lettered, or left for another instance. Given by a store that processes in
   * the instance that answered (memory, Durable Object), so that the receiver can hand it to
   * the platform's `waitUntil`; absent when nothing runs here for it (Redis: its workers
   * process, or an event already handled).
   * @defaultValue none
   */
  processing?: Promise<void>;
}

/** How recorded events are processed; given to a store once by `createWebhookReceiver`. */
export interface ProcessingOptions {
  /** Runs one attempt; a throw or rejection is a failed attempt. */
  process(recorded: RecordedEvent): Promise<void>;
  /** Seconds a dedupe record is kept (the window in which a sender may retry). */
  windowSeconds: number;
  /** Processing attempts before an event is dead-lettered (≥ 1). */
  maxAttempts: number;
  /** Delay before the first retry, milliseconds; doubles on each further retry. */
  retryDelayMs: number;
  /** Called after each failed attempt; `final` is true when the event was dead-lettered. */
  onFailure(error: unknown, recorded: RecordedEvent, final: boolean): void;
  /**
   * Reports a store problem that does not belong to one event (e.g. a lost connection).
   * @defaultValue none: such problems are not reported
   */
  onStoreError?(error: unknown, what: string): void;
  /**
   * Observes each run of the handler (for metrics): called once per `process` call that ran,
   * with its result. An event found already processed runs nothing and reports nothing.
   * @defaultValue none: runs are not observed
   */
  onHandlerRun?(run: HandlerRun): void;
}

/** One run of the handler as a store reports it to `ProcessingOptions.onHandlerRun`. */
export interface HandlerRun {
  /** 'ok' when `process` resolved, 'failed' when it threw (a retry or a dead letter follows). */
  result: 'ok' | 'failed';
  recorded: RecordedEvent;
  /** Milliseconds the run took. */
  durationMs: number;
}

/**
 * Runs one processing attempt and reports it to `onHandlerRun` (whose own throw goes to `onStoreError`);
 * the attempt's error is rethrown for the store's retry logic.
 */
export async function runHandler(p: ProcessingOptions, recorded: RecordedEvent): Promise<void> {
  const started = performance.now();
  const report = (result: HandlerRun['result']) => {
    try {
      p.onHandlerRun?.({ result, recorded, durationMs: performance.now() - started });
    } catch (err) {
      // An observer must not change the outcome of processing.
      p.onStoreError?.(err, 'receiver: onHandlerRun threw; processing goes on');
    }
  };
  try {
    await p.process(recorded);
  } catch (error) {
    report('failed');
    throw error;
  }
  report('ok');
}

/** Shared storage of a receiver: durable records, dedupe, queue, dead letters. */
export interface ReceiverStore {
  /** Starts processing recorded events (called once, by `createWebhookReceiver`). */
  start(options: ProcessingOptions): void;
  /**
   * Records `event` under `key` durably before resolving, atomically telling a first delivery
   * from a duplicate. With `webhookId` (the sender's `webhook-id`, Standard Webhooks), a
   * delivery is also a duplicate when that id was recorded within the window, whatever its
   * payload. A duplicate of a dead-lettered event puts it back in the queue: a dedupe record
   * never suppresses a retry of a failed processing. Throws `StoreUnavailableError` when the
   * event could not be recorded. `trace`, the delivery's trace context, is kept with the event
   * and handed to its processing (`RecordedEvent.trace`).
   */
  record(key: string, event: ReceivedEvent, webhookId?: string, trace?: TraceContext): Promise<RecordOutcome>;
  /** The dead-lettered events, oldest first. */
  deadLetters(): Promise<DeadLetter[]>;
  /** Queues a dead letter again with a fresh set of attempts; false when `id` is not dead-lettered. */
  retryDeadLetter(id: string): Promise<boolean>;
  /** Stops taking events and waits for the processing attempts under way to finish. */
  close(): Promise<void>;
  /**
   * For `order: 'per-session'`: in one atomic step shared by every instance of the store,
   * compares `position` with the newest position already processed for its session and
   * moves that mark forward when `position` is not older (`isOlderPosition`). Resolves false
   * when the event is older (stale), true otherwise. A mark is kept for the dedupe window after
   * its last move. Throws `StoreUnavailableError` when the store cannot answer (the attempt
   * fails and is retried).
   */
  advanceSession?(position: SessionPosition, windowSeconds: number): Promise<boolean>;
}

/** Where an event stands in the order of its session (`order: 'per-session'`). */
export interface SessionPosition {
  sessionId: string;
  /** The event's own `timestamp`, epoch milliseconds. */
  time: number;
  /** When the event was recorded (its arrival), epoch milliseconds: breaks ties of `time`. */
  arrival: number;
  /** The recording id: an event is never older than itself (a retry of the newest runs). */
  id: string;
}

/** A session position without its session. */
export type OrderPoint = Pick<SessionPosition, 'time' | 'arrival' | 'id'>;

/**
 * Whether `position` is older than `newest`: an earlier timestamp, or the same timestamp and an
 * earlier arrival. The same event (same id) is never older than itself.
 */
export function isOlderPosition(position: OrderPoint, newest: OrderPoint): boolean {
  if (position.id === newest.id) return false;
  return position.time < newest.time || (position.time === newest.time && position.arrival < newest.arrival);
}

/** The store could not record or read; the receiver answers 503 so the sender retries. `cause` holds why. */
export { StoreUnavailableError } from '@session-resume-api/runtime/store-unavailable-error';
