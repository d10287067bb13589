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
  drainFirstWindow: number;
  drainMaxWindow: number;
}

/** The two parts, in ms. */
export interface CircuitDelay {
  /** Longest hold of one event: the streak may fail for `disableAfterMs`, and the probe that closes the circuit comes at most one probe interval later. */
  holdMs: number;
  /** Time until the last of the longest backlog (`maxHeldEvents`) is released once the circuit closes. */
  drainMs: number;
  /** Rounds of answers the drain of the longest backlog takes. */
  drainRounds: number;
}

/**
 * The longest hold and the drain of the longest backlog after it. The drain keeps a window of
 * released events in flight, `drainFirstWindow` at first, widened by one per delivered attempt up
 * to `drainMaxWindow` (server/webhooks/endpoint-circuit-rules.ts): a round in which every event of
 * the window is delivered doubles it. An endpoint that still delivers answers within
 * `answerDeadlineMs`, so a round takes at most that long. A slow-down answer during the drain
 * starts it over, and fewer attempts in flight per instance than the window (WEBHOOK_CONCURRENCY)
 * slow it: that receiver's and that operator's own doing is not counted here.
 * @example circuitDelay({ disableAfterMs: 86_400_000, maxProbeIntervalMs: 60_000, maxHeldEvents: 100_000, drainFirstWindow: 10, drainMaxWindow: 2000 }, 5000)
 * // { holdMs: 86_460_000, drainMs: 285_000, drainRounds: 57 }
 */
export function circuitDelay(fields: CircuitFields, answerDeadlineMs: number): CircuitDelay {
  let released = 0;
  let window = Math.max(fields.drainFirstWindow, 1);
  let drainRounds = 0;
  while (released < fields.maxHeldEvents) {
    released += window;
    window = Math.min(window * 2, Math.max(fields.drainMaxWindow, 1));
    drainRounds++;
  }
  return { holdMs: fields.disableAfterMs + fields.maxProbeIntervalMs, drainMs: drainRounds * answerDeadlineMs, drainRounds };
}
