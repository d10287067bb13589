/**
 * PLACEHOLDER so the server branch compiles: the real sender (URL policy, pinned connection,
 * 5 s deadline, retries) is written on another branch and replaces this file at merge.
 */
import type { Logger } from 'pino';
import type { WebhookSender } from './webhook-sender.js';

/** Options of the webhook sender; see the implementing branch for defaults. */
export interface WebhookSenderOptions {
  url: string;
  allowPrivate?: boolean;
  ca?: string | Buffer;
  logger?: Logger;
  timeoutMs?: number;
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

/** Creates the sender for `options.url`. Placeholder: throws until the real one is merged. */
export function createWebhookSender(_options: WebhookSenderOptions): WebhookSender {
  throw new Error('not implemented');
}
