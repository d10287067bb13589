/** The answers of the receiver core, in the spec's shapes (webhooks.sessionEvent responses). */
import type { ErrorBody, WebhookAck } from '@session-resume-api/runtime/types';

/** Statuses of the error answers: bad body, bad signature, wrong URL token, method, size, store down. */
export type ErrorStatus = 400 | 401 | 404 | 405 | 413 | 503;

/** 200 with a `WebhookAck` (plus the store id), 200 for a probe (nothing recorded), or an error status with `ErrorBody`. */
export type ReceiveResult =
  | { status: 200; body: WebhookAck & { received: true; duplicate: boolean; id: string } }
  | { status: 200; body: WebhookAck & { received: true; duplicate: false; probe: true } }
  | { status: ErrorStatus; body: ErrorBody };

/** An error answer `{ success: false, error, message }` (x-decisions: error-body). */
export function errorResult(status: ErrorStatus, error: string, message: string): ReceiveResult {
  return { status, body: { success: false, error, message } };
}
