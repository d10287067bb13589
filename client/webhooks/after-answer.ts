/** Keeping an event's processing alive after its 200 on platforms that end a request's work with its response. */

/** Workers' `ctx`, Vercel's `{ waitUntil }` (`@vercel/functions`), or `{ waitUntil: after }` with Next.js. */
export interface AfterAnswer {
  /** Keeps the request's work alive until `promise` settles (it never rejects). */
  waitUntil(promise: Promise<unknown>): void;
}

/** workerd (`Cloudflare-Workers` user agent) and Vercel's edge runtime (`EdgeRuntime` global) stop a request's work at its answer. */
export function cancelsWorkAfterAnswer(): boolean {
  const g = globalThis as { navigator?: { userAgent?: unknown }; EdgeRuntime?: unknown };
  return g.navigator?.userAgent === 'Cloudflare-Workers' || typeof g.EdgeRuntime === 'string';
}

/** A wrong context given to `fetch`, `receive` or `answer` is a programming error. */
export function checkAfterAnswer(context: AfterAnswer | undefined): void {
  if (context !== undefined && typeof context?.waitUntil !== 'function') {
    throw new TypeError(
      "receiver.fetch(request, context): context must have a waitUntil(promise) method (Workers' ctx, Vercel's { waitUntil }, or { waitUntil: after } in Next.js)",
    );
  }
}
