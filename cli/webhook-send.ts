/**
 * `webhook send`: one event N times, C at a time, exactly as the service delivers it and with the
 * same identity every time, to test a receiver's dedupe.
 */
import { deliverEvent, type DeliveryFailureReason, type DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import { createCliSigner, newWebhookId, withSigningAdvice } from './webhook-signing.js';

/** Options of `runWebhookSend`. */
export interface WebhookSendOptions {
  /**
   * How many deliveries.
   * @defaultValue 1
   */
  times?: number;
  /**
   * How many at a time.
   * @defaultValue 1
   */
  concurrency?: number;
  /**
   * Allow loopback receivers and skip certificate verification for them only.
   * @defaultValue false
   */
  insecureLocalhost?: boolean;
  /**
   * CA certificate(s) to trust instead of the system roots (PEM).
   * @defaultValue the system roots
   */
  ca?: string | Buffer;
  /**
   * Deadline of each delivery in ms.
   * @defaultValue 5000: a receiver answers 200 within 5 s
   */
  timeoutMs?: number;
  /**
   * Standard Webhooks secret (`whsec_` + base64) to sign with, as the service does.
   * @defaultValue unsigned
   */
  secret?: string;
}

/** Counts, failures by reason with one example each, timings in ms. */
export interface WebhookSendSummary {
  event: SessionEvent;
  sent: number;
  delivered: number;
  /** Deliveries the receiver answered 200 with `duplicate: true` (it had the event already). */
  duplicates: number;
  failed: number;
  failures: Partial<Record<DeliveryFailureReason, { count: number; example: string }>>;
  durationMs: { min: number; median: number; max: number };
}

/** Never throws for a failed delivery. */
export async function runWebhookSend(url: string, event: SessionEvent, options: WebhookSendOptions = {}): Promise<WebhookSendSummary> {
  const times = options.times ?? 1;
  // One webhook-id for every delivery: the same event sent again, as the service retries it.
  const headers = createCliSigner(options.secret)(newWebhookId());
  const signed = options.secret !== undefined;
  const results: DeliveryResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < times) {
      next++;
      const result = await deliverEvent(url, event, { insecureLocalhost: options.insecureLocalhost, ca: options.ca, timeoutMs: options.timeoutMs, headers });
      results.push(withSigningAdvice(result, signed));
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 1, times) }, worker));

  const failures: WebhookSendSummary['failures'] = {};
  for (const r of results) {
    if (r.delivered) continue;
    const entry = (failures[r.reason] ??= { count: 0, example: r.message });
    entry.count++;
  }
  const durations = results.map((r) => r.durationMs).sort((a, b) => a - b);
  const delivered = results.filter((r) => r.delivered).length;
  const duplicates = results.filter((r) => r.delivered && isDuplicateAnswer(r.response?.body)).length;
  return {
    event,
    sent: results.length,
    delivered,
    duplicates,
    failed: results.length - delivered,
    failures,
    durationMs: {
      min: durations[0] ?? 0,
      median: durations[Math.floor(durations.length / 2)] ?? 0,
      max: durations[durations.length - 1] ?? 0,
    },
  };
}

/** The summary as human-readable lines. */
export function formatSendSummary(summary: WebhookSendSummary): string[] {
  const { event, sent, delivered, duplicates, failed, durationMs } = summary;
  const lines = [
    `event ${JSON.stringify(event)}`,
    `sent ${sent}: ${delivered} delivered${delivered ? ` (${delivered - duplicates} new, ${duplicates} duplicate)` : ''}, ${failed} failed ` +
      `(ms min ${durationMs.min}, median ${durationMs.median}, max ${durationMs.max})`,
  ];
  for (const [reason, entry] of Object.entries(summary.failures)) {
    lines.push(`  ${reason}: ${entry.count}  e.g. ${entry.example}`);
  }
  return lines;
}

/** The receiver kit's answer to a repeat. */
function isDuplicateAnswer(body: string | undefined): boolean {
  try {
    return (JSON.parse(body ?? '') as { duplicate?: unknown }).duplicate === true;
  } catch {
    return false;
  }
}
