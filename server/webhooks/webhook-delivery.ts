/** The role the resume route and the sandbox hand events to: memory delivery or Redis delivery. */
import type { WebhookMessage } from '../core/webhook-message.js';

/** Delivers session events to the configured webhook URL without holding up any answer. */
export interface WebhookDelivery {
  /** Hands over one event written by a resume; returns at once, never throws for delivery failures. */
  enqueue(event: WebhookMessage): void;
  /** Stops taking events and waits up to `timeoutMs` (default 10 000 ms) for pending deliveries. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}
