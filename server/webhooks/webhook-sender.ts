/** The role the resume route hands events to; implemented by `createWebhookSender`. */
import type { SessionEvent } from '../../spec/types.js';

/** Delivers session events to the configured webhook URL without holding up any answer. */
export interface WebhookSender {
  /** Queues one event for delivery (with retries); returns at once, never throws for delivery failures. */
  enqueue(event: SessionEvent): void;
  /** Stops taking events and waits up to `timeoutMs` (default 10 000 ms) for pending deliveries. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}
