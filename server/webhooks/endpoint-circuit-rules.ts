/**
 * The circuit of one webhook endpoint, pure (x-decisions: endpoint-health): `closed` delivers;
 * a streak of failures, a storm of slow-down answers (429, 502, 504) or a 410 stops deliveries;
 * `open` lets one probe attempt through on a growing interval and closes on any success;
 * failing for `disableAfterMs` (or a 410) leaves it `disabled` until the operator enables it.
 * Events are held meanwhile (at most `maxHeldEvents`, the rest dead letters to replay). Once it
 * closes, the held backlog drains earliest due first, one release every `drainIntervalMs` of a
 * batch growing from `drainFirstBatch` by `drainBatchFactor`; a slow-down answer or a
 * Retry-After meanwhile starts the batch over and waits. Stores and the engine apply these
 * functions; the state itself is shared by every instance (server/webhooks/endpoint-circuit.ts).
 */
import { cappedDelayMs } from '@session-resume-api/runtime/backoff';
import type { EndpointHealthPolicy } from './endpoint-health-policy.js';

/** Where an endpoint stands. */
export type EndpointState = 'closed' | 'open' | 'disabled';

/** Why the circuit left `closed`. */
export type EndpointReason = 'failures' | 'slow_down' | 'gone' | 'failing_too_long';

/** The shared state of one endpoint (`webhooks endpoint --json` prints this shape, its times as ISO 8601). */
export interface EndpointHealth {
  state: EndpointState;
  /** Consecutive failed attempts. */
  streak: number;
  /** Consecutive answers with a slow-down status. */
  slowDowns: number;
  /** Failed probes since the circuit opened. */
  probes: number;
  /** The first failure of the streak, ms since the epoch. */
  failingSince?: number;
  /** While open: the earliest time of the next probe, ms since the epoch. */
  nextProbeAt?: number;
  /** Why the circuit left `closed`. */
  reason?: EndpointReason;
  /** The last change of state, ms since the epoch. */
  changedAt?: number;
  /** While open: when an instance last released the held event due earliest to make the due probe, ms since the epoch. */
  probeReleasedAt?: number;
  /** While closed with a held backlog to drain: the earliest time of its next release, ms since the epoch. */
  drainAt?: number;
  /** Held events the next release of the drain lets go. */
  drainBatch?: number;
}

/** What happened to the endpoint. */
export type HealthSignal =
  | { kind: 'delivered' }
  | { kind: 'failed'; probe: boolean; status?: number; retryAfterMs?: number }
  | { kind: 'claim_probe' }
  | { kind: 'enable' }
  /** Claims the release of the held event that makes the due probe: one instance lets it go. */
  | { kind: 'release_probe' }
  /** Claims the next release of the drain: the claimer lets go `drainBatch` held events. */
  | { kind: 'claim_drain' }
  /** A release found fewer held events than its batch: the backlog is empty. */
  | { kind: 'drained' }
  /** Held events may be left while closed (an instance held one on an older view, or restarted): drain them. */
  | { kind: 'resume_drain' };

/** What an attempt may do now: deliver, deliver as the probe (after claiming it), or wait. */
export type Admission = { kind: 'deliver' } | { kind: 'probe' } | { kind: 'hold'; untilMs?: number };

/** A healthy endpoint. */
export const HEALTHY: EndpointHealth = Object.freeze({ state: 'closed', streak: 0, slowDowns: 0, probes: 0 });

/** The wait before the probe that follows `failedProbes` failed ones, in ms. */
export function probeDelayMs(failedProbes: number, policy: EndpointHealthPolicy): number {
  return cappedDelayMs(Math.min(failedProbes, 64) + 1, { baseMs: policy.firstProbeAfterMs, factor: policy.probeBackoffFactor, maxMs: policy.maxProbeIntervalMs });
}

/** What an attempt may do at `now`, from the state it sees. */
export function admission(health: EndpointHealth, now: number): Admission {
  if (health.state === 'closed') return { kind: 'deliver' };
  if (health.state === 'disabled') return { kind: 'hold' };
  const due = health.nextProbeAt ?? 0;
  return now >= due ? { kind: 'probe' } : { kind: 'hold', untilMs: due };
}

/** The state after `signal` at `now`; the same object when nothing changes. */
export function nextHealth(health: EndpointHealth, signal: HealthSignal, now: number, policy: EndpointHealthPolicy): EndpointHealth {
  switch (signal.kind) {
    case 'enable':
      return draining({ ...HEALTHY, changedAt: now }, now, policy);
    case 'delivered':
      if (health.state === 'disabled') return health;
      if (health.state === 'closed' && health.streak === 0 && health.slowDowns === 0) return health;
      // Closing after an outage starts the drain of the held backlog; a closed circuit keeps its drain.
      // The first release waits an interval after the delivered probe: the endpoint has just recovered.
      if (health.state === 'closed') return { ...HEALTHY, ...defined({ changedAt: health.changedAt, drainAt: health.drainAt, drainBatch: health.drainBatch }) };
      return draining({ ...HEALTHY, changedAt: now }, now + policy.drainIntervalMs, policy);
    case 'claim_drain':
      if (health.state !== 'closed' || health.drainAt === undefined || now < health.drainAt) return health;
      return { ...health, drainAt: now + policy.drainIntervalMs, drainBatch: Math.min(Math.ceil(batchOf(health, policy) * policy.drainBatchFactor), policy.maxHeldEvents) };
    case 'drained': {
      const { drainAt: _at, drainBatch: _batch, ...rest } = health;
      return health.drainAt === undefined ? health : rest;
    }
    case 'resume_drain':
      return health.state === 'closed' && health.drainAt === undefined ? draining(health, now, policy) : health;
    case 'release_probe': {
      // One release per probe, again after two rereads if no attempt claimed it (the event was held again on an older view).
      const released = health.probeReleasedAt;
      const again = released === undefined || released < (health.nextProbeAt ?? 0) || now >= released + 2 * policy.refreshMs;
      return admission(health, now).kind === 'probe' && again ? { ...health, probeReleasedAt: now } : health;
    }
    case 'claim_probe':
      // The claim moves the next probe on, so no other attempt probes while this one is under way.
      if (admission(health, now).kind !== 'probe') return health;
      return { ...health, nextProbeAt: now + probeDelayMs(health.probes, policy) };
    case 'failed':
      return failed(health, signal, now, policy);
  }
}

function failed(health: EndpointHealth, signal: Extract<HealthSignal, { kind: 'failed' }>, now: number, policy: EndpointHealthPolicy): EndpointHealth {
  const slow = signal.status !== undefined && policy.slowDownStatuses.includes(signal.status);
  const counted: EndpointHealth = {
    ...health,
    streak: health.streak + 1,
    slowDowns: slow ? health.slowDowns + 1 : 0,
    failingSince: health.failingSince ?? now,
  };
  if (health.state === 'disabled') return counted;
  if (signal.status !== undefined && policy.disableStatuses.includes(signal.status)) return to(counted, 'disabled', 'gone', now);
  const asked = signal.retryAfterMs ?? 0;
  if (health.state === 'closed') {
    const reason = counted.streak >= policy.openAfterFailures ? 'failures' : counted.slowDowns >= policy.openAfterSlowDowns ? 'slow_down' : undefined;
    // Draining: a slow-down answer starts the batch over, and the next release waits at least the Retry-After.
    if (!reason && counted.drainAt !== undefined && (slow || asked > 0)) return { ...counted, drainBatch: policy.drainFirstBatch, drainAt: Math.max(counted.drainAt, now + asked) };
    if (!reason) return counted;
    return { ...to(counted, 'open', reason, now), probes: 0, nextProbeAt: now + Math.max(probeDelayMs(0, policy), asked) };
  }
  // Open: an attempt already under way when it opened changes only the counts; a failed probe moves the next one on.
  if (!signal.probe) return counted;
  if (now - (counted.failingSince ?? now) >= policy.disableAfterMs) return to(counted, 'disabled', 'failing_too_long', now);
  const probes = health.probes + 1;
  return { ...counted, probes, nextProbeAt: now + Math.max(probeDelayMs(probes, policy), asked) };
}

function to(health: EndpointHealth, state: EndpointState, reason: EndpointReason, now: number): EndpointHealth {
  // Leaving closed stops a drain: the backlog waits for the next close.
  const { nextProbeAt: _probe, probeReleasedAt: _released, drainAt: _at, drainBatch: _batch, ...rest } = health;
  return { ...rest, state, reason, changedAt: now };
}

/** A closed circuit with its held backlog to drain, the first release at `at`. */
function draining(health: EndpointHealth, at: number, policy: EndpointHealthPolicy): EndpointHealth {
  return { ...health, drainAt: at, drainBatch: policy.drainFirstBatch };
}

function batchOf(health: EndpointHealth, policy: EndpointHealthPolicy): number {
  return health.drainBatch ?? policy.drainFirstBatch;
}

/** The fields that have a value (the state is stored as JSON, which drops the others anyway). */
function defined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}
