/**
 * Timers of the memory store that exist in every runtime: `setImmediate` where there is one
 * (Node, Bun: the cheapest "after this turn"), else `setTimeout(fn, 0)` (Workers, Deno, browsers).
 */
type Timer = ReturnType<typeof setTimeout>;

let immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;

/** Runs `fn` after the current turn: the answer is written before any handler starts. */
export function later(fn: () => void): void {
  if (immediate) {
    try {
      immediate(fn);
      return;
    } catch {
      // Next.js's Edge runtime defines setImmediate as a stub that throws ("a Node.js API is
      // used"): scheduling failed, `fn` did not run; setTimeout schedules it, now and from here on.
      immediate = undefined;
    }
  }
  setTimeout(fn, 0);
}

/** A repeating timer that does not keep a Node process alive; started on first use, not at import or creation (Workers refuse timers outside a request). */
export function backgroundInterval(fn: () => void, ms: number): { ensure(): void; stop(): void } {
  let timer: Timer | undefined;
  return {
    ensure() {
      if (timer !== undefined) return;
      timer = setInterval(fn, ms);
      (timer as { unref?: () => void }).unref?.();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
    },
  };
}
