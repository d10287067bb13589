/**
 * The Worker side of the Durable Object store: a `ReceiverStore` whose records live in one
 * Durable Object per receiver name (store-object.ts), shared by every Worker instance bound to
 * the namespace. Processing runs in the Worker that answered, kept alive by the platform's
 * `waitUntil` (`receiver.fetch(request, ctx)`); an event whose Worker died mid-way is claimed by
 * a later request once its lease ends.
 */
import { checkInteger, checkOption } from '@session-resume-api/runtime/options-error';
import {
  runHandler,
  StoreUnavailableError,
  type DeadLetter,
  type ProcessingOptions,
  type OrderedReceiverStore,
  type RecordedEvent,
  type RecordOutcome,
} from '../store.js';
import { handlerRetryDelayMs } from '../handler-backoff.js';
import type { RecordAnswer, StoreCall } from './protocol.js';

/** The part of a `DurableObjectNamespace` binding the store uses. */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: never): { fetch(input: string, init: RequestInit): Promise<Response> };
}

/** Default Durable Object name: one object per receiver. */
export const DEFAULT_OBJECT_NAME = 'session-resume-api';
/** Default ms an attempt holds its event before another request may take it over. */
export const DEFAULT_LEASE_MS = 60_000;
/** Default ms a call to the object may take before the delivery is answered 503. */
export const DEFAULT_CALL_TIMEOUT_MS = 2000;
/** Default events with their payload the object holds at most (being processed, or dead-lettered). */
export const DEFAULT_OBJECT_MAX_EVENTS = 100_000;
/** Default compact records of handled events the object holds at most, within their dedupe window (docs/bounds.md). */
export const DEFAULT_OBJECT_MAX_RECORDS = 1_000_000;
/** Events whose lease ran out (or whose retry is due) that one delivery takes over, at most. */
const SWEEP_PER_DELIVERY = 5;

/** Options of `createDurableObjectStore`. */
export interface DurableObjectStoreOptions {
  /** The `DurableObjectNamespace` binding of `WebhookStoreObject` (`env.WEBHOOK_STORE`). */
  namespace: DurableObjectNamespaceLike;
  /**
   * Name of the object: receivers with the same name share records.
   * @defaultValue {@link DEFAULT_OBJECT_NAME}
   */
  name?: string;
  /**
   * Ms an attempt holds its event; past it, a later request takes the event over (its Worker
   * is taken to have died). Longer than your slowest `onEvent`.
   * @defaultValue {@link DEFAULT_LEASE_MS} (60 000)
   */
  leaseMs?: number;
  /**
   * Ms a call to the object may take; a recording not answered in time is a 503, and its write
   * arriving later changes nothing.
   * @defaultValue {@link DEFAULT_CALL_TIMEOUT_MS} (2000)
   */
  callTimeoutMs?: number;
  /**
   * Events the object holds at most with their payload (being processed, or dead-lettered); when
   * full, a new event is answered 503 until events are handled.
   * @defaultValue {@link DEFAULT_OBJECT_MAX_EVENTS} (100 000)
   */
  maxEvents?: number;
  /**
   * Handled events the object remembers at most for the rest of their dedupe window, each as a
   * compact record (about 200 bytes of storage); when full, a new event is answered 503 until
   * records leave the window.
   * @defaultValue {@link DEFAULT_OBJECT_MAX_RECORDS} (1 000 000)
   */
  maxRecords?: number;
}

/**
 * Creates a `ReceiverStore` on a Durable Object: shared by every Worker bound to the namespace,
 * recorded before the 200, processed once. Use with `receiver.fetch(request, ctx)`.
 *
 * @param options - `namespace` is required; the rest have their `@defaultValue`
 * @example
 * const receiver = createWebhookReceiver({ store: createDurableObjectStore({ namespace: env.WEBHOOK_STORE }), onEvent });
 * export default { fetch: (request, env, ctx) => receiver.fetch(request, ctx) };
 */
export function createDurableObjectStore(options: DurableObjectStoreOptions): OrderedReceiverStore {
  const { namespace, name, leaseMs, callTimeoutMs, maxEvents, maxRecords } = resolveOptions(options);
  const call = objectCaller(namespace, name, callTimeoutMs);
  const running = new Set<Promise<void>>();
  let processing: ProcessingOptions | undefined;
  let closed = false;

  const run = (claimed: RecordedEvent[]): Promise<void> | undefined => {
    if (claimed.length === 0 || !processing) return undefined;
    const current = processing;
    const all = Promise.all(claimed.map((r) => attempts(current, call, r, leaseMs))).then(() => undefined);
    running.add(all);
    void all.finally(() => running.delete(all));
    return all;
  };

  return {
    start(processingOptions) {
      if (processing) throw new Error('createDurableObjectStore: start() was called twice; one store serves one receiver');
      processing = processingOptions;
    },
    async record(key, event, webhookId): Promise<RecordOutcome> {
      if (closed) throw new StoreUnavailableError('the Durable Object store is closed');
      if (!processing) throw new StoreUnavailableError('the Durable Object store was not started by a receiver');
      const answer = await call<RecordAnswer>({
        op: 'record',
        key,
        event,
        webhookId,
        windowMs: processing.windowSeconds * 1000,
        leaseMs,
        deadline: Date.now() + callTimeoutMs,
        maxEvents,
        maxRecords,
        sweepLimit: SWEEP_PER_DELIVERY,
      });
      if ('late' in answer) throw new StoreUnavailableError('the Durable Object answered after the call timed out');
      if ('full' in answer) {
        throw new StoreUnavailableError(
          answer.records
            ? `the Durable Object holds its limit of ${maxRecords} records of handled events within the dedupe window (maxRecords); retry later`
            : `the Durable Object holds its limit of ${maxEvents} events being processed or dead-lettered (maxEvents); retry later`,
        );
      }
      const work = run(answer.claimed);
      return work ? { id: answer.id, duplicate: answer.duplicate, processing: work } : { id: answer.id, duplicate: answer.duplicate };
    },
    deadLetters: () => call<DeadLetter[]>({ op: 'deadLetters' }),
    retryDeadLetter: (id) => call<boolean>({ op: 'retry', id }),
    advanceSession: (position, windowSeconds) => call<boolean>({ op: 'advance', position, windowMs: windowSeconds * 1000 }),
    async close() {
      closed = true;
      await Promise.all(running);
    },
  };
}

/** The options with their defaults, each checked (an `OptionsError` names the one that is wrong). */
function resolveOptions(options: DurableObjectStoreOptions) {
  const {
    namespace,
    name = DEFAULT_OBJECT_NAME,
    leaseMs = DEFAULT_LEASE_MS,
    callTimeoutMs = DEFAULT_CALL_TIMEOUT_MS,
    maxEvents = DEFAULT_OBJECT_MAX_EVENTS,
    maxRecords = DEFAULT_OBJECT_MAX_RECORDS,
  } = options ?? {};
  checkOption(
    typeof namespace?.idFromName === 'function' && typeof namespace.get === 'function',
    'createDurableObjectStore: namespace must be the DurableObjectNamespace binding of WebhookStoreObject (env.WEBHOOK_STORE)',
  );
  checkOption(typeof name === 'string' && name.length > 0, 'createDurableObjectStore: name must be a non-empty string');
  checkInteger('createDurableObjectStore: leaseMs', leaseMs, { min: 1 });
  checkInteger('createDurableObjectStore: callTimeoutMs', callTimeoutMs, { min: 1 });
  checkInteger('createDurableObjectStore: maxEvents', maxEvents, { min: 1 });
  checkInteger('createDurableObjectStore: maxRecords', maxRecords, { min: 1 });
  return { namespace, name, leaseMs, callTimeoutMs, maxEvents, maxRecords };
}

type Call = <T>(body: StoreCall) => Promise<T>;

/** Calls the object by its name, bounded by `timeoutMs`; a failure is a `StoreUnavailableError`. */
function objectCaller(namespace: DurableObjectNamespaceLike, name: string, timeoutMs: number): Call {
  return async <T>(body: StoreCall): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoreUnavailableError(`the Durable Object did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      // A stub per call: workerd lets a stub serve only the request that made it.
      const stub = namespace.get(namespace.idFromName(name) as never);
      const answer = await Promise.race([stub.fetch('https://webhook-store/', { method: 'POST', body: JSON.stringify(body) }), timeout]);
      if (!answer.ok) throw new Error(`the Durable Object answered ${answer.status}: ${await answer.text()}`);
      return (await answer.json()) as T;
    } catch (error) {
      throw error instanceof StoreUnavailableError ? error : new StoreUnavailableError('the Durable Object could not be reached', { cause: error });
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Runs a claimed event's attempts here, retries after their delay included; never rejects. */
async function attempts(processingOptions: ProcessingOptions, call: Call, claimed: RecordedEvent, leaseMs: number): Promise<void> {
  let recorded: RecordedEvent | null = claimed;
  try {
    while (recorded) {
      try {
        await runHandler(processingOptions, recorded);
        await call({ op: 'finish', id: recorded.id, attempt: recorded.attempt, ok: true });
        return;
      } catch (error) {
        if (error instanceof StoreUnavailableError) throw error;
        const final = recorded.attempt >= processingOptions.maxAttempts;
        const retryDelayMs = handlerRetryDelayMs(processingOptions, recorded.attempt);
        processingOptions.onFailure(error, recorded, final);
        await call({
          op: 'finish',
          id: recorded.id,
          attempt: recorded.attempt,
          ok: false,
          error: error instanceof Error ? error.message : String(error),
          final,
          retryDelayMs,
        });
        if (final) return;
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
        recorded = await call<RecordedEvent | null>({ op: 'claim', id: recorded.id, leaseMs });
      }
    }
  } catch (error) {
    // The object could not be reached: the lease runs out and a later request takes the event over.
    processingOptions.onStoreError?.(error, 'the Durable Object store could not record the end of an attempt; the event is taken over after its lease');
  }
}
