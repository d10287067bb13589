/** Forwards one feed entry as the service delivers it: signed, one deliverEvent per attempt, retried by `nextStep`. */
import { deliverEvent, type DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';
import { nextStep, type NextStep } from '@session-resume-api/runtime/delivery/retry-rules';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import type { SandboxEvent } from 'session-resume-api/sandbox';
import { formatDelay } from '../format-delay.js';
import type { AttemptHeaders } from '../webhook-signing.js';
import { sleep } from './follow-feed.js';

/** How forwarding goes. */
export interface ForwardOptions {
  url: string;
  headers(webhookId: string): AttemptHeaders;
  schedule: readonly number[];
  timeoutMs: number;
  /** Allow loopback targets, plain http:// included. */
  insecureLocalhost: boolean;
  /** Stops waiting for the next attempt (Ctrl-C). */
  signal: AbortSignal;
  print(line: string): void;
  /**
   * Copies of each attempt sent at once (concurrentCopies); the first copy's answer decides what follows.
   * @defaultValue 1
   */
  copies?: number;
  /**
   * Said at the end of each line, e.g. `(duplicate)`.
   * @defaultValue none
   */
  note?: string;
  /**
   * Called once the first attempt was answered (or failed): a held event may follow then.
   * @defaultValue none
   */
  onFirstAnswer?(): void;
}

/** How one entry ended. */
export type ForwardOutcome = 'delivered' | 'dead' | 'stopped';

/** Time, event, session id, status (or why none), ms, and what follows. */
export function attemptLine(at: Date, event: SessionEvent, result: DeliveryResult, step: NextStep | undefined, attempt: number): string {
  const status = result.status === undefined ? (result.delivered ? '200' : result.reason) : String(result.status);
  const next =
    step === undefined
      ? ''
      : step.kind === 'retry'
        ? `  retry ${attempt + 1} in ${formatDelay(step.delayMs)}`
        : `  dead (${step.reason === 'gone' ? '410 Gone' : `no attempts left after ${attempt}`})`;
  const advice = result.status === 401 ? '  (the receiver checks signatures: give it the whsec_ secret printed above)' : '';
  return `${at.toISOString()}  ${event.event}  ${event.session.id}  ${status}  ${result.durationMs} ms${next}${advice}`;
}

/** Delivers `entry` until it is delivered, dead, or `signal` stops the waiting. */
export async function forwardEntry(entry: SandboxEvent, options: ForwardOptions): Promise<ForwardOutcome> {
  const event = entry.payload as SessionEvent;
  const headers = options.headers(entry.webhookId);
  const copies = options.copies ?? 1;
  const note = (copy: number) => [copies > 1 ? `(copy ${copy} of ${copies})` : '', options.note ?? ''].filter(Boolean).join(' ');
  for (let attempt = 1; ; attempt++) {
    const at = new Date();
    const send = () => deliverEvent(options.url, event, { insecureLocalhost: options.insecureLocalhost, timeoutMs: options.timeoutMs, headers });
    const [result, ...others] = (await Promise.all(Array.from({ length: copies }, send))) as [DeliveryResult, ...DeliveryResult[]];
    if (attempt === 1) options.onFirstAnswer?.();
    others.forEach((other, index) => options.print(withNote(attemptLine(at, event, other, undefined, attempt), note(index + 2))));
    if (result.delivered) {
      options.print(withNote(attemptLine(at, event, result, undefined, attempt), note(1)));
      return 'delivered';
    }
    const step = nextStep(options.schedule, attempt, { status: result.status, retryAfter: result.retryAfter });
    options.print(withNote(attemptLine(at, event, result, step, attempt), note(1)));
    if (step.kind === 'dead') return 'dead';
    await sleep(step.delayMs, options.signal);
    if (options.signal.aborted) return 'stopped';
  }
}

const withNote = (line: string, note: string) => (note ? `${line}  ${note}` : line);
