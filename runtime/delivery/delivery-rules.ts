/**
 * The delivery rules a receiver must keep, written once: `webhook grade` checks each, and the sandbox's
 * delivery profile makes the `fault` conditions happen, its fields, bounds and defaults read from the
 * faults (a test keeps spec/sandbox.yaml equal). Grader checks are keyed by these ids. Browser-safe.
 */
import type { SandboxApiComponents as components } from 'session-resume-api-types';
import { WEBHOOK_DELIVERY_POLICY } from '../behaviour.js';

const { answerDeadlineMs, dedupe, signature, retry } = WEBHOOK_DELIVERY_POLICY;
/** The policy's numbers as the rules' texts say them. */
const DEADLINE = `${answerDeadlineMs / 1000} s`;
const TOLERANCE = `${signature.toleranceMs / 60_000} minutes`;
const WINDOW = `${dedupe.windowMs / 3_600_000} h`;
const LAST_RETRY = `${Math.max(...retry.scheduleMs) / 3_600_000} h`;

/** A sandbox world's delivery profile, as sent and answered by the control API. */
export type DeliveryProfile = components['schemas']['DeliveryProfile'];

/** One field of the delivery profile: what it does, its bounds and its default. */
export interface ProfileFault {
  /** The profile field (a property of spec/sandbox.yaml `DeliveryProfile`). */
  field: keyof DeliveryProfile;
  /** What the sandbox does with it, for people. */
  description: string;
  /** `share`: a number from 0 to 1; `ms`, `copies`: whole numbers; `schedule`: a list of delays in ms. */
  kind: 'share' | 'ms' | 'copies' | 'schedule';
  /** Smallest value (of each delay, for a schedule). */
  min: number;
  /** Largest value (of each delay, for a schedule). */
  max: number;
  /** Longest list, for a schedule. */
  maxItems?: number;
  /** The value when the field is absent: every event once, in order, on time. */
  default?: number;
}

/** One delivery rule. */
export interface DeliveryRule {
  /** Stable id, used in `webhook grade --json` and the docs' anchors. */
  id: string;
  /** Short name of the check, for the report line. */
  title: string;
  /** The rule, as a receiver's author reads it. */
  rule: string;
  /** The decisions of spec/openapi.yaml (`x-decisions` ids) it comes from. */
  decisions: readonly string[];
  /** How the service behaves when a receiver breaks it. */
  broken: string;
  /** The profile fields that make this rule's condition happen in a sandbox world, if any. */
  faults?: readonly ProfileFault[];
}

/** Longest wait any `ms` field of the profile allows: one minute. */
export const MAX_PROFILE_DELAY_MS = 60_000;

/** In the order `webhook grade` checks them; later checks may use earlier answers. */
export const DELIVERY_RULES = [
  {
    id: 'https',
    title: 'HTTPS URL',
    rule: 'The webhook URL is an absolute https:// URL (plain http:// only for a loopback receiver while testing locally).',
    decisions: ['webhook-url-policy'],
    broken: 'The service refuses the URL: no event is ever delivered to it.',
  },
  {
    id: 'ack',
    title: `200 within ${DEADLINE}`,
    rule: `Each delivery is answered 200 within ${DEADLINE}; slow work is done after answering. Only 200 counts: another 2xx, a redirect (never followed), a timeout or an error is a failed delivery.`,
    decisions: ['webhook-ack', 'webhook-retry'],
    broken:
      'The service counts the delivery as failed and sends the event again on its retry schedule (waiting at least what a 429 or 503 asks with Retry-After), then lists it as a dead letter.',
    faults: [
      {
        field: 'retryScheduleMs',
        description:
          "The delays before each attempt of a failed delivery, the first included, in ms; 429 or 503 with Retry-After waits at least what it asks, 410 ends the event. Absent: the delivery engine's schedule (listen --retry-schedule).",
        kind: 'schedule',
        min: 0,
        max: 3_600_000,
        maxItems: 10,
      },
    ],
  },
  {
    id: 'ack-burst',
    title: `200 within ${DEADLINE} under a burst`,
    rule: `Under a burst of concurrent distinct deliveries, the slowest answer (p99) still comes within ${DEADLINE}.`,
    decisions: ['webhook-ack', 'webhook-retry'],
    broken:
      'The service sends up to 50 deliveries at once per instance; those answered late are failed deliveries, retried on the schedule, so a slow burst grows into more load.',
  },
  {
    id: 'duplicate-again',
    title: 'duplicate answered 200',
    rule: 'The same event delivered again (same webhook-id, same body) is answered 200.',
    decisions: ['webhook-retry', 'event-payload-forms'],
    broken: 'The service retries an event whose duplicate was refused until it runs out of attempts: the receiver sees it again and again.',
    faults: [
      { field: 'duplicateRate', description: 'Share of events delivered a second time after they were delivered.', kind: 'share', min: 0, max: 1, default: 0 },
    ],
  },
  {
    id: 'duplicate-after-delay',
    title: 'late duplicate answered 200',
    rule: 'The same event delivered again some time later (a retry after a lost answer) is answered 200.',
    decisions: ['webhook-retry'],
    broken: 'The service retries an event whose duplicate was refused until it runs out of attempts, then lists it as a dead letter although it was received.',
    faults: [
      {
        field: 'duplicateDelayMs',
        description: 'Wait between a delivered event and its second delivery, in ms.',
        kind: 'ms',
        min: 0,
        max: MAX_PROFILE_DELAY_MS,
        default: 0,
      },
    ],
  },
  {
    id: 'duplicate-concurrent',
    title: 'concurrent copies answered 200',
    rule: 'Copies of one event arriving at the same moment (two instances of the service, a retry racing a slow answer) are all answered 200.',
    decisions: ['webhook-retry', 'webhook-outbox'],
    broken: 'A copy refused while another is being recorded is retried by the service, so the receiver sees the event again.',
    faults: [
      { field: 'concurrentCopies', description: 'Copies of each delivery sent at the same moment (1 sends one).', kind: 'copies', min: 1, max: 10, default: 1 },
    ],
  },
  {
    id: 'duplicate-other-instance',
    title: 'duplicate at another instance answered 200',
    rule: 'The same event delivered to another instance of the receiver is answered 200.',
    decisions: ['webhook-retry'],
    broken: 'Behind a load balancer every retry may reach another instance; one that refuses duplicates makes the service retry until it runs out of attempts.',
  },
  {
    id: 'dedupe',
    title: 'duplicates not processed again',
    rule: 'A duplicate (same event, session id and timestamp, or same webhook-id) is acknowledged but not processed again.',
    decisions: ['event-payload-forms', 'dedupe-window'],
    broken: 'Deliveries are at least once: a receiver that processes every copy runs its work twice (two emails, two charges).',
  },
  {
    id: 'dedupe-shared',
    title: 'duplicates not processed again by another instance',
    rule: `The record of processed events is kept in storage every instance shares (for about ${WINDOW}), so a duplicate reaching another instance is not processed again.`,
    decisions: ['dedupe-window'],
    broken: 'A retry reaching another instance is processed a second time when each instance remembers only its own events.',
  },
  {
    id: 'payload-forms',
    title: 'every payload form answered 200',
    rule: 'Every payload form the service may send is answered 200: nested session.id or flat session_id, with or without data.',
    decisions: ['event-payload-forms'],
    broken: 'A form answered 400 is retried until the service runs out of attempts and then lost (dead letter).',
  },
  {
    id: 'unknown-event',
    title: 'unknown event name answered 200',
    rule: 'An event name the receiver does not know is answered 200 (and ignored): the list of event kinds is open.',
    decisions: ['event-kinds'],
    broken: 'A new kind of event answered with an error is retried until the service runs out of attempts, for every event of that kind.',
  },
  {
    id: 'late-event',
    title: 'late event answered 200',
    rule: 'An event whose timestamp is hours old (a delivery delayed by retries) is answered 200; the timestamp is the time of the event, never of the delivery.',
    decisions: ['event-timestamp', 'webhook-retry'],
    broken: `Retries come up to ${LAST_RETRY} after the event; a receiver that refuses old events loses every event that needed a retry.`,
    faults: [
      { field: 'delayMs', description: 'Wait before the first attempt of each delivery, in ms.', kind: 'ms', min: 0, max: MAX_PROFILE_DELAY_MS, default: 0 },
      {
        field: 'jitterMs',
        description: 'A random extra wait from 0 to this, in ms, added to delayMs.',
        kind: 'ms',
        min: 0,
        max: MAX_PROFILE_DELAY_MS,
        default: 0,
      },
    ],
  },
  {
    id: 'out-of-order',
    title: 'events out of order answered 200',
    rule: 'Events of one session arriving out of order (the later one first) are both answered 200; the receiver orders them by timestamp if order matters.',
    decisions: ['webhook-retry'],
    broken:
      'Nothing keeps order across retries: a receiver that refuses the earlier event once it saw the later one makes the service retry it until it is a dead letter.',
    faults: [
      {
        field: 'outOfOrderRate',
        description: 'Share of events held back and delivered just after the next event of the world (at most 5 s later when no next one comes).',
        kind: 'share',
        min: 0,
        max: 1,
        default: 0,
      },
    ],
  },
  {
    id: 'signature-valid',
    title: 'signed delivery accepted',
    rule: "A delivery signed with the receiver's secret (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature) is answered 200.",
    decisions: ['webhook-signing', 'webhook-standard-headers'],
    broken: 'Every delivery is refused and retried until the service runs out of attempts.',
  },
  {
    id: 'signature-invalid',
    title: 'bad signatures refused',
    rule: `A delivery whose body does not match its signature, signed with another secret, or with a timestamp more than ${TOLERANCE} off, is refused (401, never 2xx).`,
    decisions: ['webhook-signing'],
    broken: 'Anyone who knows the URL can make the receiver process forged or replayed events.',
  },
  {
    id: 'ack-headroom',
    title: `answer time against ${DEADLINE}`,
    rule: `Every delivery of the run is answered within ${DEADLINE}, with room to spare: the report gives the median and the slowest answer time against the deadline.`,
    decisions: ['webhook-ack'],
    broken:
      'A receiver with little headroom misses the deadline as soon as it slows down (a deploy, a busy store): each such delivery fails and is sent again.',
  },
] as const satisfies readonly DeliveryRule[];

/** The id of a rule. */
export type DeliveryRuleId = (typeof DELIVERY_RULES)[number]['id'];

/** Every field of the delivery profile with its rule, in list order. */
export const PROFILE_FAULTS: readonly (ProfileFault & { rule: DeliveryRuleId })[] = DELIVERY_RULES.flatMap((rule) =>
  'faults' in rule ? rule.faults.map((fault: ProfileFault) => ({ ...fault, rule: rule.id })) : [],
);

/** Every event once, in order, on time, on the engine's retry schedule. */
export const DEFAULT_DELIVERY_PROFILE: Readonly<DeliveryProfile> = Object.freeze(
  Object.fromEntries(PROFILE_FAULTS.filter((f) => f.default !== undefined).map((f) => [f.field, f.default])) as unknown as DeliveryProfile,
);

/** Outcome of `readDeliveryProfile`: the profile with defaults filled in, or what is wrong. */
export type ProfileReading = { ok: true; profile: DeliveryProfile } | { ok: false; message: string };

/**
 * Reads a delivery profile (parsed JSON): an object of the known fields within their bounds;
 * absent fields take their defaults.
 * @example readDeliveryProfile({ duplicateRate: 0.5 }) // { ok: true, profile: { duplicateRate: 0.5, concurrentCopies: 1, … } }
 */
export function readDeliveryProfile(input: unknown): ProfileReading {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, message: 'A delivery profile is a JSON object, e.g. {"duplicateRate": 0.5}.' };
  }
  const known = new Map(PROFILE_FAULTS.map((f) => [f.field as string, f]));
  const profile: Record<string, unknown> = { ...DEFAULT_DELIVERY_PROFILE };
  for (const [name, value] of Object.entries(input)) {
    const fault = known.get(name);
    if (!fault)
      return { ok: false, message: `${JSON.stringify(name.slice(0, 64))} is not a delivery profile field; the fields are ${[...known.keys()].join(', ')}.` };
    const problem = checkField(fault, value);
    if (problem) return { ok: false, message: `${name} ${problem}` };
    profile[name] = fault.kind === 'schedule' ? [...(value as number[])] : value;
  }
  return { ok: true, profile: profile as DeliveryProfile };
}

function checkField(fault: ProfileFault, value: unknown): string | undefined {
  const inRange = (n: unknown): n is number => Number.isFinite(n) && (n as number) >= fault.min && (n as number) <= fault.max;
  const whole = (n: unknown) => inRange(n) && Number.isInteger(n);
  if (fault.kind === 'share') return inRange(value) ? undefined : `must be a number from ${fault.min} to ${fault.max}.`;
  if (fault.kind !== 'schedule') return whole(value) ? undefined : `must be a whole number from ${fault.min} to ${fault.max}.`;
  const ok = Array.isArray(value) && value.length >= 1 && value.length <= (fault.maxItems ?? 1) && value.every(whole);
  return ok ? undefined : `must list 1 to ${fault.maxItems} delays, each a whole number of ms from ${fault.min} to ${fault.max}.`;
}
