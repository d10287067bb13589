/**
 * The role of every receiver store: record an event durably, saying whether it was seen before (the
 * receiver answers only then), and run the processing with retries and dead letters.
 */
import type { TraceContext } from '@session-resume-api/runtime/trace-context';
import type { ReceivedEvent } from './tolerant-event.js';

/** One recorded event as handed to the processor. */
export interface RecordedEvent {
  /** Store-assigned id of this recording (dead letters are retried by it). */
  id: string;
  /** `dedupeKey`: sha256 hex of event, session id and timestamp, or of the canonical body when one is absent. */
  key: string;
  /** Normalized (x-decisions: event-payload-forms). */
  event: ReceivedEvent;
  /** Epoch ms. */
  receivedAt: number;
  /** 1, then 2 for the first retry, ... */
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

/** `duplicate`: the key was recorded within the window. */
export interface RecordOutcome {
  id: string;
  duplicate: boolean;
  /**
   * Settles (never rejects) when this instance's processing of the event is over, for the platform's
   * `waitUntil`; absent when nothing runs here for it (Redis workers, or an event already handled).
   * @defaultValue none
   */
  processing?: Promise<void>;
}

/** How recorded events are processed; given to a store once by `createWebhookReceiver`. */
export interface ProcessingOptions {
  /** Runs one attempt; a throw or rejection is a failed attempt. */
  process(recorded: RecordedEvent): Promise<void>;
  /** Seconds a dedupe record is kept: the window in which a sender may retry. */
  windowSeconds: number;
  /** Processing attempts before an event is dead-lettered (≥ 1). */
  maxAttempts: number;
  /** ms; doubles on each further retry. */
  retryDelayMs: number;
  /** `final`: the event was dead-lettered. */
  onFailure(error: unknown, recorded: RecordedEvent, final: boolean): void;
  /**
   * Reports a store problem not tied to one event (e.g. a lost connection).
   * @defaultValue none: such problems are not reported
   */
  onStoreError?(error: unknown, what: string): void;
  /**
   * Observes each handler run (metrics); an event found already processed reports nothing.
   * @defaultValue none: runs are not observed
   */
  onHandlerRun?(run: HandlerRun): void;
}

/** One run of the handler as a store reports it to `ProcessingOptions.onHandlerRun`. */
export interface HandlerRun {
  /** 'failed': it threw (a retry or a dead letter follows). */
  result: 'ok' | 'failed';
  recorded: RecordedEvent;
  /** Milliseconds the run took. */
  durationMs: number;
}

/** Runs one attempt and reports it to `onHandlerRun`; the attempt's error is rethrown for the store's retries. */
export async function runHandler(processingOptions: ProcessingOptions, recorded: RecordedEvent): Promise<void> {
  const started = performance.now();
  const report = (result: HandlerRun['result']) => {
    try {
      processingOptions.onHandlerRun?.({ result, recorded, durationMs: performance.now() - started });
    } catch (err) {
      // An observer must not change the outcome of processing.
      processingOptions.onStoreError?.(err, 'receiver: onHandlerRun threw; processing goes on');
    }
  };
  try {
    await processingOptions.process(recorded);
  } catch (error) {
    report('failed');
    throw error;
  }
  report('ok');
}

/** Durable records, dedupe, queue, dead letters. */
export interface ReceiverStore {
  /** Called once, by `createWebhookReceiver`. */
  start(options: ProcessingOptions): void;
  /**
   * Records `event` under `key` durably before resolving, atomically telling a first delivery from a
   * duplicate; a `webhookId` (Standard Webhooks) recorded within the window is a duplicate too,
   * whatever its payload. A duplicate of a dead letter re-queues it: dedupe never suppresses a retry
   * of failed processing. Throws `StoreUnavailableError` when it could not record.
   */
  record(key: string, event: ReceivedEvent, webhookId?: string, trace?: TraceContext): Promise<RecordOutcome>;
  /** The dead-lettered events, oldest first. */
  deadLetters(): Promise<DeadLetter[]>;
  /** Queues a dead letter again with a fresh set of attempts; false when `id` is not dead-lettered. */
  retryDeadLetter(id: string): Promise<boolean>;
  /** Stops taking events and waits for the attempts under way. */
  close(): Promise<void>;
  /**
   * For `order: 'per-session'`: atomically, across instances, moves the session's newest-processed
   * mark to `position` unless it is older (`isOlderPosition`); false when stale. A mark is kept for
   * the dedupe window after its last move. Throws `StoreUnavailableError` (the attempt is retried).
   */
  advanceSession?(position: SessionPosition, windowSeconds: number): Promise<boolean>;
}

/**
 * A store that keeps session order (has `advanceSession`): what `order: 'per-session'` needs.
 * The stores of this package all are.
 */
export type OrderedReceiverStore = ReceiverStore & Required<Pick<ReceiverStore, 'advanceSession'>>;

/** Where an event stands in the order of its session (`order: 'per-session'`). */
export interface SessionPosition {
  sessionId: string;
  /** Epoch ms. */
  time: number;
  /** Epoch ms of recording: breaks ties of `time`. */
  arrival: number;
  /** An event is never older than itself (a retry of the newest runs). */
  id: string;
}

/** A session position without its session. */
export type OrderPoint = Pick<SessionPosition, 'time' | 'arrival' | 'id'>;

/** The store could not record or read; the receiver answers 503 so the sender retries. `cause` holds why. */
export { StoreUnavailableError } from '@session-resume-api/runtime/store-unavailable-error';
