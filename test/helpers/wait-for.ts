/** Polls `check` every `intervalMs` (default 50 ms) until it returns true or `timeoutMs` (default 15 s) passes. */
export async function waitFor(check: () => boolean | Promise<boolean>, { timeoutMs = 15_000, intervalMs = 50, what = 'condition' } = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not ready yet
    }
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
