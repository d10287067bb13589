/**
 * The memory store's sweep timer, in every runtime: a repeating timer that does not keep a Node
 * process alive, started on first use, not at import or creation (Workers refuse timers
 * outside a request).
 */
type Timer = ReturnType<typeof setInterval>;

/** A repeating timer that does not keep a Node process alive; started by the first `ensure`. */
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
