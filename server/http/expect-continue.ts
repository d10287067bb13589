/**
 * `Expect: 100-continue` answered by the app: Node's own 100 would invite the body before the key and
 * the length were checked. The request guard sends the 100 once both passed (RFC 9110 §10.1.1).
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
