/**
 * The circuit of one webhook endpoint, pure (x-decisions: endpoint-health): `closed` delivers;
 * a streak of failures, a storm of slow-down answers (429, 502, 504) or a 410 stops deliveries;
 * `open` lets one probe attempt through, the first `firstProbeAfterMs` after opening (no later
 * than the retry schedule's next step), each next after a share of the outage so far
 * (`probeIntervalShare`, between `minProbeIntervalMs` and `maxProbeIntervalMs`), and closes on
 * any success; failing for `disableAfterMs` (or a 410) leaves it `disabled` until the operator
 * enables it. Events are held meanwhile (at most `maxHeldEvents`, the rest dead letters to
 * replay). Once it closes, the held backlog drains earliest due first under a window of events
 * in flight that starts at `drainFirstWindow` and widens by one per delivered attempt (slow
 * start, up to `drainMaxWindow`); a slow-down answer or a Retry-After meanwhile starts the
 * window over and waits. Stores and the engine apply these functions; the state itself is
 * shared by every instance (server/webhooks/endpoint-circuit.ts).
 */
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
  /** While draining: released held events allowed in flight. */
  drainWindow?: number;
  /** While draining: released held events no instance has reported done yet. */
  drainOutstanding?: number;
  /** While draining: held events the last claimed release let go. */
  drainBatch?: number;
  /** While draining: when an instance last claimed a release, ms since the epoch. */
  drainClaimedAt?: number;
}

/** What happened to the endpoint. */
export type HealthSignal =
  | { kind: 'delivered' }
  | { kind: 'failed'; probe: boolean; status?: number; retryAfterMs?: number }
  | { kind: 'claim_probe' }
  | { kind: 'enable' }
  /** Claims the release of the held event that makes the due probe: one instance lets it go. */
  | { kind: 'release_probe' }
  /**
   * Reports the attempts this instance finished since its last claim (`done`, of which `acked`
   * were delivered) and claims the next release of the drain: the claimer lets go `drainBatch`
   * held events, what the window allows beyond those still in flight.
   */
  | { kind: 'claim_drain'; done: number; acked: number }
  /** A release asked for `asked` held events and found `found`: fewer, and the backlog is empty. */
  | { kind: 'released'; asked: number; found: number }
  /** Held events may be left while closed (an instance held one on an older view, or restarted): drain them. */
  | { kind: 'resume_drain' };

/** What an attempt may do now: deliver, deliver as the probe (after claiming it), or wait. */
export type Admission = { kind: 'deliver' } | { kind: 'probe' } | { kind: 'hold'; untilMs?: number };

/** The state of an endpoint that delivers: circuit closed, no failure streak, nothing held. */
export const CLOSED_CIRCUIT: EndpointHealth = Object.freeze({ state: 'closed', streak: 0, slowDowns: 0, probes: 0 });

/** The wait before the next probe after one that failed `outageMs` after the first failure of the streak, in ms. */
export function probeDelayMs(outageMs: number, policy: EndpointHealthPolicy): number {
  return Math.min(policy.maxProbeIntervalMs, Math.max(policy.minProbeIntervalMs, Math.round(Math.max(0, outageMs) * policy.probeIntervalShare)));
}

/** What an attempt may do at `now`, from the state it sees. */
export function admitAttempt(health: EndpointHealth, now: number): Admission {
  if (health.state === 'closed') return { kind: 'deliver' };
  if (health.state === 'disabled') return { kind: 'hold' };
  const due = health.nextProbeAt ?? 0;
  return now >= due ? { kind: 'probe' } : { kind: 'hold', untilMs: due };
}

/** The state after `signal` at `now`; the same object when nothing changes. */
export function nextHealth(health: EndpointHealth, signal: HealthSignal, now: number, policy: EndpointHealthPolicy): EndpointHealth {
  switch (signal.kind) {
    case 'enable':
      return draining({ ...CLOSED_CIRCUIT, changedAt: now }, now, policy);
    case 'delivered':
      if (health.state === 'disabled') return health;
      if (health.state === 'closed' && health.streak === 0 && health.slowDowns === 0) return health;
      // Closing after an outage starts the drain of the held backlog at once; a closed circuit keeps its drain.
      if (health.state === 'closed') return { ...CLOSED_CIRCUIT, ...defined({ changedAt: health.changedAt, ...drainOf(health) }) };
      return draining({ ...CLOSED_CIRCUIT, changedAt: now }, now, policy);
    case 'claim_drain':
      return claimDrain(health, signal, now, policy);
    case 'released': {
      if (health.drainAt === undefined) return health;
      if (signal.found < signal.asked) return withoutDrain(health);
      return health;
    }
    case 'resume_drain':
      return health.state === 'closed' && health.drainAt === undefined ? draining(health, now, policy) : health;
    case 'release_probe': {
      // One release per probe, again after two rereads if no attempt claimed it (the event was held again on an older view).
      const released = health.probeReleasedAt;
      const again = released === undefined || released < (health.nextProbeAt ?? 0) || now >= released + 2 * policy.refreshMs;
      return admitAttempt(health, now).kind === 'probe' && again ? { ...health, probeReleasedAt: now } : health;
    }
    case 'claim_probe':
      // The claim moves the next probe on, so no other attempt probes while this one is under way.
      if (admitAttempt(health, now).kind !== 'probe') return health;
      return { ...health, nextProbeAt: now + probeDelayMs(now - (health.failingSince ?? now), policy) };
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
    if (!reason && counted.drainAt !== undefined && (slow || asked > 0))
      return { ...draining(counted, Math.max(counted.drainAt, now + asked), policy), drainClaimedAt: now };
    if (!reason) return counted;
    return { ...to(counted, 'open', reason, now), probes: 0, nextProbeAt: now + Math.max(policy.firstProbeAfterMs, asked) };
  }
  // Open: an attempt already under way when it opened changes only the counts; a failed probe moves the next one on.
  if (!signal.probe) return counted;
  if (now - (counted.failingSince ?? now) >= policy.disableAfterMs) return to(counted, 'disabled', 'failing_too_long', now);
  const probes = health.probes + 1;
  return { ...counted, probes, nextProbeAt: now + Math.max(probeDelayMs(now - (counted.failingSince ?? now), policy), asked) };
}

function to(health: EndpointHealth, state: EndpointState, reason: EndpointReason, now: number): EndpointHealth {
  // Leaving closed stops a drain: the backlog waits for the next close.
  const { nextProbeAt: _probe, probeReleasedAt: _released, ...rest } = withoutDrain(health);
  return { ...rest, state, reason, changedAt: now };
}

/**
 * The next release of the drain: the acknowledgements reported widen the window (one each, up to
 * `drainMaxWindow`), the attempts reported done leave the count in flight, and the claimer lets go
 * what the window allows beyond the rest. Nobody reporting for `drainIntervalMs` means nothing
 * counted is in flight any more (an instance that died took its count with it).
 */
function claimDrain(health: EndpointHealth, signal: { done: number; acked: number }, now: number, policy: EndpointHealthPolicy): EndpointHealth {
  if (health.state !== 'closed' || health.drainAt === undefined || now < health.drainAt) return health;
  const window = Math.min(policy.drainMaxWindow, (health.drainWindow ?? policy.drainFirstWindow) + Math.max(0, signal.acked));
  const silent = signal.done === 0 && now >= (health.drainClaimedAt ?? now) + policy.drainIntervalMs;
  const outstanding = silent ? 0 : Math.max(0, (health.drainOutstanding ?? 0) - Math.max(0, signal.done));
  const batch = Math.max(0, window - outstanding);
  if (batch === 0 && signal.done === 0 && signal.acked === 0 && !silent) return health;
  return { ...health, drainWindow: window, drainOutstanding: outstanding + batch, drainBatch: batch, drainClaimedAt: now };
}

/** A closed circuit with its held backlog to drain, the first release at `at` under the first window. */
function draining(health: EndpointHealth, at: number, policy: EndpointHealthPolicy): EndpointHealth {
  return { ...withoutDrain(health), drainAt: at, drainWindow: policy.drainFirstWindow, drainOutstanding: 0 };
}

/** The drain's fields of `health`. */
function drainOf(health: EndpointHealth): Partial<EndpointHealth> {
  const { drainAt, drainWindow, drainOutstanding, drainBatch, drainClaimedAt } = health;
  return { drainAt, drainWindow, drainOutstanding, drainBatch, drainClaimedAt };
}

/** `health` without a drain. */
function withoutDrain(health: EndpointHealth): EndpointHealth {
  const { drainAt: _at, drainWindow: _window, drainOutstanding: _outstanding, drainBatch: _batch, drainClaimedAt: _claimed, ...rest } = health;
  return rest;
}

/** The fields that have a value (the state is stored as JSON, which drops the others anyway). */
function defined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}
