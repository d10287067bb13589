/**
 * Recordings of one event-loop turn in one script call. Deliveries that arrive together (the
 * requests read in one poll of the loop) are recorded by one call of the record script
 * instead of one call each: the bucket keys, the command and its socket write are paid once
 * per turn, and Redis runs one script for all of them. Each event's recording stays atomic
 * (the whole call is), and each caller gets its own outcome, or the call's error.
 */

/** What `createRecordBatch` needs. */
export interface RecordBatchOptions<I, O> {
  /** Records `items` in one call; resolves with one outcome per item, in order. */
  send(items: readonly I[]): Promise<O[]>;
  /** Most items in one call; a full batch goes at once (when a call may start). */
  maxItems: number;
  /**
   * Most calls under way at once. Items added while that many are under way wait and go
   * together as soon as one settles: under load a call carries what arrived during the
   * previous one's round trip, with no added wait when nothing is under way.
   * @defaultValue no bound
   */
  maxInFlight?: number;
}

/**
 * Creates the batcher: `add(item)` resolves with the item's outcome once its batch was sent
 * (at the end of the current event-loop turn, at once when `maxItems` are waiting, or when a
 * call under way settles if `maxInFlight` are).
 *
 * @example
 * const batch = createRecordBatch({ send: (items) => recordAll(items), maxItems: 200, maxInFlight: 1 });
 * const outcome = await batch.add(item);
 */
export function createRecordBatch<I, O>({ send, maxItems, maxInFlight = Infinity }: RecordBatchOptions<I, O>): { add(item: I): Promise<O> } {
  // Waiting items are bounded by their callers (each waits for its own outcome).
  const items: I[] = [];
  const waiting: Array<{ resolve(outcome: O): void; reject(error: unknown): void }> = [];
  let scheduled: NodeJS.Immediate | undefined;
  let inFlight = 0;

  const settled = () => {
    inFlight--;
    if (items.length > 0) scheduled ??= setImmediate(flush);
  };

  function flush(): void {
    clearImmediate(scheduled);
    scheduled = undefined;
    if (items.length === 0 || inFlight >= maxInFlight) return;
    const sent = items.splice(0, maxItems);
    const callers = waiting.splice(0, sent.length);
    inFlight++;
    let sending: Promise<O[]>;
    try {
      sending = send(sent);
    } catch (error) {
      sending = Promise.reject(error);
    }
    sending
      .then(
        (outcomes) => callers.forEach((caller, i) => caller.resolve(outcomes[i]!)),
        (error: unknown) => callers.forEach((caller) => caller.reject(error)),
      )
      .finally(settled);
  }

  return {
    add(item) {
      return new Promise<O>((resolve, reject) => {
        items.push(item);
        waiting.push({ resolve, reject });
        if (items.length >= maxItems) flush();
        else scheduled ??= setImmediate(flush);
      });
    },
  };
}
