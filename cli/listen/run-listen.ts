/** `listen`: forwards the sandbox world's events to the developer's URL, signed and retried as the service does. */
import { randomBytes } from 'node:crypto';
import type { SandboxEvent } from 'session-resume-api/sandbox';
import { maskSecret, redactWebhookUrl } from '@session-resume-api/runtime/redact-url';
import { DEFAULT_DELIVERY_PROFILE, type DeliveryProfile } from '@session-resume-api/runtime/delivery/delivery-rules';
import { createCliSigner } from '../webhook-signing.js';
import { createProfileScheduler } from './apply-profile.js';
import { followEventFeed } from './follow-feed.js';
import { forwardEntry, type ForwardOutcome } from './forward-entry.js';

/** Options of `runListen`. */
export interface ListenOptions {
  /** Where events go (https://, or http:// on a loopback host). */
  forwardTo: string;
  baseUrl: string;
  apiKey: string;
  /**
   * True when the key was generated for this run: printed whole; a given one is masked (`maskSecret`).
   * @defaultValue `false`
   */
  apiKeyGenerated?: boolean;
  /**
   * The `whsec_` secret to sign with.
   * @defaultValue one generated for this run and printed
   */
  secret?: string;
  schedule: readonly number[];
  timeoutMs: number;
  /** Allow loopback targets (http:// too): set when the target's host is loopback. */
  insecureLocalhost: boolean;
  signal: AbortSignal;
  print(line: string): void;
  /**
   * A delivery profile that replaces the world's (listen --profile).
   * @defaultValue the world's, followed live
   */
  profile?: DeliveryProfile;
  /**
   * A source in [0, 1) for the profile's rates and jitter.
   * @defaultValue Math.random
   */
  random?: () => number;
}

/** Events being forwarded at once; beyond this, new ones are reported and skipped (a world keeps 1000). */
export const MAX_FORWARDS_IN_FLIGHT = 1000;

/** `whsec_` + 32 random bytes in base64. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The fields that differ from the default, or "the default (…)". */
export function describeProfile(profile: DeliveryProfile): string {
  const changed = Object.entries(profile).filter(
    ([field, value]) => JSON.stringify(value) !== JSON.stringify((DEFAULT_DELIVERY_PROFILE as Record<string, unknown>)[field]),
  );
  return changed.length === 0
    ? 'the default (every event once, in order, on time)'
    : changed.map(([field, value]) => `${field} ${JSON.stringify(value)}`).join(', ');
}

/** Runs until `signal` aborts (resolves) or the feed refuses the key (rejects with UsageError). */
export async function runListen(options: ListenOptions): Promise<Record<ForwardOutcome, number>> {
  const secret = options.secret ?? generateWebhookSecret();
  const signer = createCliSigner(secret);
  const { print } = options;
  // Secrets are printed whole only when generated here; the target never shows its token.
  const key = options.apiKeyGenerated ? `${options.apiKey}, generated for this run` : maskSecret(options.apiKey);
  print(`Forwarding the session events of ${options.baseUrl} (sandbox key ${key}) to ${redactWebhookUrl(options.forwardTo)}`);
  print(
    options.secret
      ? `Signing secret: ${maskSecret(secret)}  (the one you gave)`
      : `Signing secret: ${secret}  (generated for this run: give it to your receiver)`,
  );
  print('Press Ctrl-C to stop.');
  const counts: Record<ForwardOutcome, number> = { delivered: 0, dead: 0, stopped: 0 };
  const inFlight = new Set<Promise<unknown>>();
  let profile: DeliveryProfile = options.profile ?? { ...DEFAULT_DELIVERY_PROFILE };
  if (options.profile) print(`Delivery profile (--profile, the world's is not followed): ${describeProfile(profile)}`);
  const scheduler = createProfileScheduler({
    profile: () => profile,
    signal: options.signal,
    print,
    ...(options.random ? { random: options.random } : {}),
    track(task) {
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
    },
    forward: (entry, how) =>
      forwardEntry(entry, { ...options, ...how, url: options.forwardTo, headers: signer, schedule: how.schedule ?? options.schedule }).then(
        (outcome) => {
          if (!how.duplicate) counts[outcome]++;
          return outcome;
        },
        (error: unknown) => {
          print(`event ${entry.sequence} (${entry.webhookId}) not forwarded: ${(error as Error).message}`);
          return 'dead' as const;
        },
      ),
  });
  const forward = (entry: SandboxEvent) => {
    if (inFlight.size >= MAX_FORWARDS_IN_FLIGHT) {
      print(`skipped event ${entry.sequence} (${entry.webhookId}): ${MAX_FORWARDS_IN_FLIGHT} events are being forwarded already`);
      return;
    }
    scheduler.accept(entry);
  };
  const onProfile = (next: DeliveryProfile) => {
    if (options.profile || JSON.stringify(next) === JSON.stringify(profile)) return;
    profile = next;
    print(`Delivery profile of the world: ${describeProfile(profile)}`);
  };
  try {
    await followEventFeed({ baseUrl: options.baseUrl, apiKey: options.apiKey, signal: options.signal, onEvent: forward, onProfile, onStatus: print });
  } finally {
    scheduler.stop();
    await Promise.all(inFlight);
  }
  print(`stopped: ${counts.delivered} delivered, ${counts.dead} dead, ${counts.stopped} still retrying when stopped`);
  return counts;
}
