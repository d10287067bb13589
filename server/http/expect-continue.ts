/**
 * `Expect: 100-continue` answered by the app, not by Node: Node sends `100 Continue` at once
 * unless the server listens to `checkContinue`, which would invite the body before the key
 * and the length were checked. The HTTP server marks such requests here; the request guard
 * sends the `100 Continue` once both checks have passed (RFC 9110 §10.1.1).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const pending = new WeakSet<IncomingMessage>();

/** Marks `req` as waiting for a `100 Continue` that nobody has sent yet. */
export function markContinuePending(req: IncomingMessage): void {
  pending.add(req);
}

/** Whether `req` still waits for its `100 Continue`. */
export function isContinuePending(req: IncomingMessage): boolean {
  return pending.has(req);
}

/** Sends the pending `100 Continue` of `req`, once; does nothing for other requests. */
export function sendContinue(req: IncomingMessage, res: ServerResponse): void {
  if (!pending.delete(req)) return;
  res.writeContinue();
}
