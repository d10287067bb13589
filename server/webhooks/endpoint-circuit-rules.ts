/**
 * The circuit of one webhook endpoint, pure (x-decisions: endpoint-health): `closed` delivers;
 * a streak of failures, a storm of slow-down answers (429, 502, 504) or a 410 stops deliveries;
 * `open` lets one probe attempt through on a growing interval and closes on any success;
 * failing for `disableAfterMs` (or a 410) leaves it `disabled` until the operator enables it.
 * Events are held meanwhile, never dropped. Stores and the engine apply these functions; the
 * state itself is shared by every instance (server/webhooks/endpoint-circuit.ts).
 */
import type { EndpointHealthPolicy } from './endpoint-health-policy.js';

/** Where an endpoint stands. */
export type EndpointState = 'closed' | 'open' | 'disabled';

/** Why the circuit left `closed`. */
export type EndpointReason = 'failures' | 'slow_down' | 'gone' | 'failing_too_long';

/** The shared state of one endpoint (`webhooks endpoint --json` prints this shape). */
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
}

/** What happened to the endpoint. */
export type HealthSignal =
  | { kind: 'delivered' }
  | { kind: 'failed'; probe: boolean; status?: number; retryAfterMs?: number }
  | { kind: 'claim_probe' }
  | { kind: 'enable' };

/** What an attempt may do now: deliver, deliver as the probe (after claiming it), or wait. */
export type Admission = { kind: 'deliver' } | { kind: 'probe' } | { kind: 'hold'; untilMs?: number };

/** A healthy endpoint. */
export const HEALTHY: EndpointHealth = Object.freeze({ state: 'closed', streak: 0, slowDowns: 0, probes: 0 });

/** The wait before the probe that follows `failedProbes` failed ones, in ms. */
export function probeDelayMs(failedProbes: number, policy: EndpointHealthPolicy): number {
  const grown = policy.firstProbeAfterMs * policy.probeBackoffFactor ** Math.min(failedProbes, 64);
  return Math.min(grown, policy.maxProbeIntervalMs);
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
      return { ...HEALTHY, changedAt: now };
    case 'delivered':
      if (health.state === 'disabled') return health;
      if (health.state === 'closed' && health.streak === 0 && health.slowDowns === 0) return health;
      return health.state === 'closed' ? { ...HEALTHY, ...(health.changedAt !== undefined ? { changedAt: health.changedAt } : {}) } : { ...HEALTHY, changedAt: now };
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
  const { nextProbeAt: _dropped, ...rest } = health;
  return { ...rest, state, reason, changedAt: now };
}
