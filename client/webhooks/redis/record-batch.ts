/**
 * One event-loop turn's recordings in one script call: keys, command and socket write paid once per
 * turn. Each recording stays atomic, and each caller gets its own outcome or the call's error.
 */

export interface RecordBatchOptions<I, O> {
  /** Records `items` in one call; resolves with one outcome per item, in order. */
  send(items: readonly I[]): Promise<O[]>;
  /** Most items in one call; a full batch goes at once (when a call may start). */
  maxItems: number;
  /**
   * Most calls under way. Items added meanwhile go together once one settles: under load a call
   * carries what arrived during the previous round trip, with no added wait otherwise.
   * @defaultValue no bound
   */
  maxInFlight?: number;
}

/**
 * `add(item)` resolves with its outcome once its batch was sent: at the end of the turn, at once at
 * `maxItems`, or when a call settles if `maxInFlight` are under way.
 * @example const outcome = await createRecordBatch({ send: recordAll, maxItems: 200, maxInFlight: 1 }).add(item);
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
