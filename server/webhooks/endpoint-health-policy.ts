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
  /** Wait before the first probe once the circuit opened, in ms. */
  firstProbeAfterMs: number;
  /** Each failed probe multiplies the wait before the next by this. */
  probeBackoffFactor: number;
  /** Longest wait between two probes, in ms. */
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
  /** Held events the first release of the drain lets go once the circuit closed. */
  drainFirstBatch: number;
  /** Each release of the drain lets go this many times the previous one (a slow-down answer starts over). */
  drainBatchFactor: number;
  /** Wait between two releases of the drain, in ms (at least a Retry-After the endpoint gave meanwhile). */
  drainIntervalMs: number;
}

/** The contract's figures. */
export const ENDPOINT_HEALTH_POLICY: EndpointHealthPolicy = WEBHOOK_DELIVERY_POLICY.endpointHealth;
