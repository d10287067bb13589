/**
 * Handler runs at once in one instance, across every job: `concurrency` counts runs, not jobs, so a
 * batch's events may take every free slot while other jobs wait. First come, first served.
 */

/** Runs functions with at most `limit` of them under way. */
export interface HandlerSlots {
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/** @example await createHandlerSlots(4).run(() => handler(event)); */
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
