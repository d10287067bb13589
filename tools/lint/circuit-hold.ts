/**
 * How long the endpoint circuit (x-delivery-policy `endpointHealth`; x-decisions: endpoint-health)
 * can keep one event from its receiver, and how long the drain after that hold takes: the part of
 * the redelivery horizon that reads the probe and drain fields. Kept apart from the horizon so a
 * change of how the circuit probes or drains is made here alone.
 */

/** The circuit fields the hold and the drain depend on (the rest of `endpointHealth` is ignored). */
export interface CircuitFields {
  disableAfterMs: number;
  maxHeldEvents: number;
  maxProbeIntervalMs: number;
  drainFirstBatch: number;
  drainBatchFactor: number;
  drainIntervalMs: number;
}

/** The two parts, in ms. */
export interface CircuitDelay {
  /** Longest hold of one event: the streak may fail for `disableAfterMs`, and the probe that closes the circuit comes at most one probe interval later. */
  holdMs: number;
  /** Time until the last of the longest backlog (`maxHeldEvents`) is released once the circuit closes. */
  drainMs: number;
  /** Releases the drain of the longest backlog takes. */
  drainReleases: number;
}

/**
 * The longest hold and the drain of the longest backlog after it. The drain's first release comes
 * `drainIntervalMs` after the probe, each next one `drainIntervalMs` later and
 * `drainBatchFactor` times larger (server/webhooks/endpoint-circuit-rules.ts). A slow-down answer
 * during the drain starts it over: that receiver's own doing is not counted here.
 * @example circuitDelay({ disableAfterMs: 86_400_000, maxProbeIntervalMs: 1_800_000, maxHeldEvents: 100_000, drainFirstBatch: 10, drainBatchFactor: 2, drainIntervalMs: 1000 })
 * // { holdMs: 88_200_000, drainMs: 14_000, drainReleases: 14 }
 */
export function circuitDelay(fields: CircuitFields): CircuitDelay {
  let released = 0;
  let batch = fields.drainFirstBatch;
  let drainReleases = 0;
  while (released < fields.maxHeldEvents) {
    released += batch;
    batch = Math.min(Math.ceil(batch * fields.drainBatchFactor), fields.maxHeldEvents);
    drainReleases++;
  }
  return { holdMs: fields.disableAfterMs + fields.maxProbeIntervalMs, drainMs: drainReleases * fields.drainIntervalMs, drainReleases };
}
