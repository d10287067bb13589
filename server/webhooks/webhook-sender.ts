/** The role the resume route hands events to: the in-process sender (memory) or the Redis outbox. */
import type { OutboxEvent } from '../core/outbox-event.js';

/** Delivers session events to the configured webhook URL without holding up any answer. */
export interface WebhookSender {
  /**
   * Hands over one event written by a resume (its `id` is the `webhook-id` of every attempt);
   * returns at once, never throws for delivery failures.
   */
  enqueue(event: OutboxEvent): void;
  /** Stops taking events and waits up to `timeoutMs` (default 10 000 ms) for pending deliveries. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}
