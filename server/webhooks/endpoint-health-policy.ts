/**
 * The figures of endpoint health (x-decisions: endpoint-health): when the circuit of the
 * webhook endpoint opens, how often a probe runs while it is open, when it is disabled, and how
 * often an instance rereads the state every instance shares.
 */

/** The figures the circuit of one endpoint follows. */
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

/** The defaults (x-decisions: endpoint-health). */
export const ENDPOINT_HEALTH_POLICY: EndpointHealthPolicy = Object.freeze({
  openAfterFailures: 10,
  openAfterSlowDowns: 3,
  slowDownStatuses: Object.freeze([429, 502, 504]),
  disableStatuses: Object.freeze([410]),
  firstProbeAfterMs: 30_000,
  probeBackoffFactor: 2,
  maxProbeIntervalMs: 1_800_000,
  disableAfterMs: 86_400_000,
  refreshMs: 1000,
});
