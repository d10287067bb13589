/**
 * The figures of endpoint health, read from the contract (the session webhook's
 * `x-delivery-policy.endpointHealth`, x-decisions: endpoint-health): when the circuit of the
 * webhook endpoint opens, how often a probe runs while it is open, when it is disabled, how
 * often an instance rereads the state every instance shares, how many events it holds at most,
 * and how fast the held backlog drains once the endpoint delivers again.
 */
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';

/** The figures the circuit of one endpoint follows (each one the contract's, by default). */
export interface EndpointHealthPolicy {
  /** Consecutive failed attempts that open the circuit. */
  openAfterFailures: number;
  /** Consecutive answers with a slow-down status that open the circuit (a storm). */
  openAfterSlowDowns: number;
  /** Statuses that ask the sender to slow down (Standard Webhooks: 429, 502, 504). */
  slowDownStatuses: readonly number[];
  /** Statuses that disable the endpoint at once (Standard Webhooks: 410 Gone). */
  disableStatuses: readonly number[];
  /**
   * Wait before the first probe once the circuit opened, in ms: no later than the retry
   * schedule's second step, when the failed events would have been retried anyway.
   */
  firstProbeAfterMs: number;
  /**
   * After a failed probe the next one waits this share of the outage so far (from the first
   * failure of the streak), between `minProbeIntervalMs` and `maxProbeIntervalMs`: a recovered
   * endpoint waits about this share of its outage for its first delivery.
   */
  probeIntervalShare: number;
  /** Shortest wait between two probes, in ms: a dead endpoint gets at most 60 000 ÷ this probes a minute. */
  minProbeIntervalMs: number;
  /** Longest wait between two probes, in ms: the longest a recovered endpoint waits, however long it was down. */
  maxProbeIntervalMs: number;
  /** Failing this long without a success (from the first failure of the streak) disables the endpoint, in ms. */
  disableAfterMs: number;
  /** How often an instance rereads the shared state, in ms (never per attempt). */
  refreshMs: number;
  /**
   * Events held at most for the endpoint while it is open or disabled; one more goes to the dead
   * letters (reason `held_overflow`), to be replayed once the endpoint delivers.
   */
  maxHeldEvents: number;
  /**
   * Released held events allowed in flight when the drain starts (after the delivered probe,
   * or `enable`), and again after a slow-down answer or a Retry-After.
   */
  drainFirstWindow: number;
  /** Each delivered attempt while draining widens the window by one (slow start), up to this. */
  drainMaxWindow: number;
  /**
   * When no attempt reports for this long while draining, the released events count as done and the
   * window is let go again, in ms (an instance that died takes its count with it).
   */
  drainIntervalMs: number;
}

/** The contract's figures. */
export const ENDPOINT_HEALTH_POLICY: EndpointHealthPolicy = WEBHOOK_DELIVERY_POLICY.endpointHealth;
