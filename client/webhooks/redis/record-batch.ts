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
  /** Most items in one call; a full batch goes at once. */
  maxItems: number;
}

/**
 * Creates the batcher: `add(item)` resolves with the item's outcome once its batch was sent
 * (at the end of the current event-loop turn, or at once when `maxItems` are waiting).
 *
 * @example
 * const batch = createRecordBatch({ send: (items) => recordAll(items), maxItems: 200 });
 * const outcome = await batch.add(item);
 */
export function createRecordBatch<I, O>({ send, maxItems }: RecordBatchOptions<I, O>): { add(item: I): Promise<O> } {
  let items: I[] = [];
  let waiting: Array<{ resolve(outcome: O): void; reject(error: unknown): void }> = [];
  let scheduled: NodeJS.Immediate | undefined;

  function flush(): void {
    clearImmediate(scheduled);
    scheduled = undefined;
    const sent = items;
    const callers = waiting;
    items = [];
    waiting = [];
    let sending: Promise<O[]>;
    try {
      sending = send(sent);
    } catch (error) {
      sending = Promise.reject(error);
    }
    sending.then(
      (outcomes) => callers.forEach((caller, i) => caller.resolve(outcomes[i]!)),
      (error: unknown) => callers.forEach((caller) => caller.reject(error)),
    );
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
