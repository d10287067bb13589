/**
 * The figures of endpoint health, read from the contract (the session webhook's
 * `x-delivery-policy.endpointHealth`, x-decisions: endpoint-health): when the circuit of the
 * webhook endpoint opens, how often a probe runs while it is open, when it is disabled, and how
 * often an instance rereads the state every instance shares.
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
}

/** The contract's figures. */
export const ENDPOINT_HEALTH_POLICY: EndpointHealthPolicy = WEBHOOK_DELIVERY_POLICY.endpointHealth;
