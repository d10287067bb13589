/**
 * Work after the answer: what keeps the processing of an event alive once its 200 is sent, on
 * platforms that end a request's work with its response. Cloudflare Workers cancel a request's
 * timers and pending work once its Response is returned unless it was handed to
 * `ctx.waitUntil`; Vercel's Edge runtime (and Next.js's) does the same without `waitUntil` or
 * `after()`. Web-platform code only.
 */

/**
 * The platform's way to keep work alive after the answer: Workers' `ctx` (`ExecutionContext`),
 * Vercel's `{ waitUntil }` from `@vercel/functions`, or `{ waitUntil: after }` with Next.js.
 */
export interface AfterAnswer {
  /** Keeps the request's work alive until `promise` settles (it never rejects). */
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * Whether this runtime is known to stop a request's work once its response is returned:
 * workerd (`navigator.userAgent` is `Cloudflare-Workers`) and Vercel's edge runtime (the
 * `EdgeRuntime` global). Read once per receiver.
 */
export function cancelsWorkAfterAnswer(): boolean {
  const g = globalThis as { navigator?: { userAgent?: unknown }; EdgeRuntime?: unknown };
  return g.navigator?.userAgent === 'Cloudflare-Workers' || typeof g.EdgeRuntime === 'string';
}

/** Checks a context given to `fetch`, `receive` or `answer` (a wrong one is a programming error). */
export function checkAfterAnswer(context: AfterAnswer | undefined): void {
  if (context !== undefined && typeof context?.waitUntil !== 'function') {
    throw new TypeError("receiver.fetch(request, context): context must have a waitUntil(promise) method (Workers' ctx, Vercel's { waitUntil }, or { waitUntil: after } in Next.js)");
  }
}
