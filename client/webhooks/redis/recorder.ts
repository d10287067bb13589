/**
 * The Redis store's ack path: one turn's deliveries in one record call carrying its oldest delivery's
 * deadline in Redis's clock. A run after the deadline changes nothing, and this instance answers 503
 * at the same deadline in its own clock: an event is recorded before its answer or never.
 */
import type { ReceivedEvent } from '../tolerant-event.js';
import type { TraceContext } from '@session-resume-api/runtime/trace-context';
import { StoreUnavailableError } from '../store.js';
import type { BatchData, BatchItem } from './batch-worker.js';
import type { RedisClock } from './redis-clock.js';
import { createRecordBatch } from './record-batch.js';
import { newId } from './recording-id.js';
import { createRecordCall, recordDeadline } from './record-call.js';
import { RECORD_STATUS, tripleField, webhookIdField, type StoreCommands, type StoreKeys } from './store-scripts.js';
import { rejectAfterMs } from './reject-after.js';

/** One event on its way into the record script; `at` is when its delivery asked (its answer's deadline counts from then). */
export interface Recording {
  at: number;
  key: string;
  event: ReceivedEvent;
  webhookId: string | undefined;
  id: string;
  trace?: TraceContext | undefined;
}

/** The record script's answer for one event: recording id, duplicate 0|1, dead-lettered 0|1. */
export type RecordResult = readonly [string, number, number];

/** What `createRecorder` needs. */
export interface RecorderOptions {
  store: Pick<StoreCommands, 'sraRecord'>;
  keys: StoreKeys;
  clock: RedisClock;
  recordTimeoutMs: number;
  /** Most events in one call (and so in one batch). */
  maxEvents: number;
  /** ms added to Redis's clock by the scripts (the store's `clockSkewMs`). */
  skewMs(): number;
  /** The dedupe window and its bucket, ms (known once the receiver started the store). */
  window(): { windowMs: number; bucketMs: number };
  onBatch(batch: { id: string; data: BatchData }): void;
}

/**
 * `add(recording)` resolves with the event's outcome once Redis recorded it before its deadline, or
 * rejects with StoreUnavailableError (then nothing is ever recorded for it).
 * @example const [id, duplicate] = await createRecorder({ store, keys, clock, recordTimeoutMs: 2000, maxEvents: 50, window, onBatch }).add({ at: Date.now(), key, event, webhookId, id: newId() });
 */
export function createRecorder(options: RecorderOptions): { add(recording: Recording): Promise<RecordResult> } {
  const { store, clock, recordTimeoutMs, window, onBatch, skewMs: skew } = options;
  const recordCall = createRecordCall(options.keys);

  async function send(items: readonly Recording[]): Promise<RecordResult[]> {
    // The clock keeps Redis's own time; the scripts read it moved by the skew.
    const skewMs = skew();
    const redisNow = clock.now();
    const deadline = recordDeadline({
      oldestAt: items[0]!.at,
      recordTimeoutMs,
      now: Date.now(),
      redisNow: redisNow === undefined ? undefined : redisNow + skewMs,
    });
    if (!deadline) throw new StoreUnavailableError(`Redis did not answer the recording within ${recordTimeoutMs} ms`);
    const batchId = newId();
    const batchItems = items.map(({ id, key, event, trace }): BatchItem => ({ id, key, event, ...(trace ? { trace } : {}) }));
    const events = items.flatMap((item, i) => [
      tripleField(item.key),
      item.webhookId === undefined ? '' : webhookIdField(item.webhookId),
      item.id,
      JSON.stringify(batchItems[i]),
    ]);
    const { windowMs, bucketMs } = window();
    const args = recordCall({ fromMs: deadline.fromMs, deadlineMs: deadline.deadlineMs, windowMs, bucketMs, batchId, skewMs, events });
    const call = store.sraRecord(...(args as [number, ...Array<string | number>]));
    // Every answer tells Redis's time, even one that came too late for its deliveries. A failed
    // call reaches the caller through `rejectAfterMs` below; this reader has nothing to observe.
    call.then(
      (out) => clock.observe(Number(out[1]) - skewMs),
      () => {},
    );
    const out = await rejectAfterMs(call, deadline.waitMs, 'the recording');
    const [status, now] = [Number(out[0]), Number(out[1])];
    if (status === RECORD_STATUS.late) {
      throw new StoreUnavailableError(`the recording reached Redis after its deadline (${recordTimeoutMs} ms from the delivery), so Redis recorded nothing`);
    }
    if (status === RECORD_STATUS.clock) {
      clock.reset(now - skewMs);
      throw new StoreUnavailableError("Redis's clock moved outside the window this instance expected (a clock stepped), so Redis recorded nothing");
    }
    const firsts = batchItems.filter((_, i) => out[3 * i + 3] === 0);
    if (firsts.length > 0) onBatch({ id: batchId, data: { receivedAt: now, events: firsts } });
    return items.map((_, i) => [out[3 * i + 2] as string, out[3 * i + 3] as number, out[3 * i + 4] as number] as const);
  }

  // One call under way: deliveries arriving meanwhile go together in the next.
  return createRecordBatch<Recording, RecordResult>({ maxItems: options.maxEvents, maxInFlight: 1, send });
}
