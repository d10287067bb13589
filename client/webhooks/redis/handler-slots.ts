/**
 * A bound on handler runs at the same time in one instance, shared by every job the worker
 * runs: a job carries a batch of events, and the store's `concurrency` counts handler runs, not
 * jobs, so the events of one batch may use every free slot while other jobs wait for theirs.
 * Waiting runs start in the order they asked (first come, first served).
 */

/** Runs functions with at most `limit` of them under way. */
export interface HandlerSlots {
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * Creates the slots.
 *
 * @example
 * const slots = createHandlerSlots(4);
 * await slots.run(() => handler(event));
 */
export function createHandlerSlots(limit: number): HandlerSlots {
  let busy = 0;
  // Bounded by the events of the jobs under way (worker concurrency × events per job).
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else busy--;
  };
  return {
    async run(fn) {
      if (busy < limit) busy++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await fn();
      } finally {
        release();
      }
    },
  };
}
