/**
 * The world's delivery profile applied to what `listen` forwards (sandbox-delivery-profile in
 * spec/sandbox.yaml): delay and jitter, an event held for the next one, copies, redelivery, schedule.
 */
import type { DeliveryProfile } from '@session-resume-api/runtime/delivery/delivery-rules';
import type { SandboxEvent } from 'session-resume-api/sandbox';
import { sleep } from './follow-feed.js';
import type { ForwardOutcome } from './forward-entry.js';

/** Longest an event is held back waiting for the next one, in ms; then it goes alone. */
export const MAX_HOLD_MS = 5000;

/** How one delivery of an event is made. */
export interface ForwardHow {
  copies: number;
  note?: string;
  schedule?: readonly number[];
  /** A second delivery of the same event (not counted as an event forwarded). */
  duplicate: boolean;
  onFirstAnswer(): void;
}

/** Options of `createProfileScheduler`. */
export interface ProfileSchedulerOptions {
  /** The profile in force now (read at each event). */
  profile(): DeliveryProfile;
  /** Delivers one event with its retries. */
  forward(entry: SandboxEvent, how: ForwardHow): Promise<ForwardOutcome>;
  /** Keeps a task until it ends: listen waits for them when it stops. */
  track(task: Promise<unknown>): void;
  signal: AbortSignal;
  print(line: string): void;
  /**
   * A source in [0, 1) for the rates and the jitter.
   * @defaultValue Math.random
   */
  random?: () => number;
}

/** Takes the feed's entries in order; `stop()` releases an event still held back. */
export function createProfileScheduler(options: ProfileSchedulerOptions): { accept(entry: SandboxEvent): void; stop(): void } {
  const random = options.random ?? Math.random;
  let held: { entry: SandboxEvent; timer: NodeJS.Timeout } | undefined;

  /** Starts the delivery of `entry` once `after` settled; resolves its first answer. */
  const deliver = (entry: SandboxEvent, note: string | undefined, after: Promise<void> = Promise.resolve()): Promise<void> => {
    const profile = options.profile();
    let answered!: () => void;
    const firstAnswer = new Promise<void>((resolve) => (answered = resolve));
    const how = { copies: profile.concurrentCopies, note, schedule: profile.retryScheduleMs, duplicate: false, onFirstAnswer: () => answered() };
    const task = (async () => {
      await after;
      const wait = profile.delayMs + Math.floor(random() * profile.jitterMs);
      if (wait > 0) {
        options.print(`event ${entry.sequence} (${entry.webhookId}): delivering in ${wait} ms (delivery profile: delayMs, jitterMs)`);
        await sleep(wait, options.signal);
      }
      if (options.signal.aborted) return;
      const outcome = await options.forward(entry, how);
      if (outcome !== 'delivered' || random() >= profile.duplicateRate) return;
      await sleep(profile.duplicateDelayMs, options.signal);
      if (!options.signal.aborted) await options.forward(entry, { ...how, note: '(duplicate)', duplicate: true, onFirstAnswer: () => undefined });
    })().finally(() => answered());
    options.track(task);
    return firstAnswer;
  };

  return {
    accept(entry) {
      if (held) {
        const earlier = held;
        held = undefined;
        clearTimeout(earlier.timer);
        // The later event first; the earlier one once the later one was answered.
        const first = deliver(entry, undefined);
        void deliver(earlier.entry, `(out of order: after event ${entry.sequence})`, first);
        return;
      }
      if (random() < options.profile().outOfOrderRate) {
        options.print(`event ${entry.sequence} (${entry.webhookId}): held back, it follows the next event (delivery profile: outOfOrderRate)`);
        const timer = setTimeout(() => {
          held = undefined;
          void deliver(entry, `(held ${MAX_HOLD_MS} ms: no next event came)`);
        }, MAX_HOLD_MS);
        held = { entry, timer };
        return;
      }
      void deliver(entry, undefined);
    },
    stop() {
      if (!held) return;
      clearTimeout(held.timer);
      options.print(`event ${held.entry.sequence} (${held.entry.webhookId}) was held back (out of order) when stopped: not delivered`);
      held = undefined;
    },
  };
}
