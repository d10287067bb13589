/**
 * Puts the endpoint's circuit (server/webhooks/endpoint-circuit.ts) in front of every attempt:
 * an attempt the circuit holds makes no request and counts no attempt (the event joins the held
 * backlog at its due time, or past the backlog's bound goes to the dead letters); an admitted
 * attempt's outcome is told to the circuit.
 */
import type { AttemptHandler, AttemptOutcome } from './delivery-queue.js';
import type { AttemptReport, EndpointCircuit } from './endpoint-circuit.js';

/** Wraps `handler` so the circuit admits each attempt and learns its outcome. */
export function guardAttempts(handler: AttemptHandler, circuit: EndpointCircuit): AttemptHandler {
  return async (job) => {
    const admitted = await circuit.admit();
    if (admitted.kind === 'hold') return circuit.hold(job);
    circuit.admitted(job.id);
    const outcome = await handler(job);
    if ('held' in outcome) return outcome;
    await circuit.record(reportOf(outcome), admitted.kind === 'probe');
    return outcome;
  };
}

function reportOf(outcome: AttemptOutcome): AttemptReport {
  const { status } = outcome.attempt;
  // The receiver's Retry-After puts the circuit's next probe (or the drain's next release) off; the event's own schedule does not.
  return { delivered: outcome.next.kind === 'delivered', status, retryAfterMs: outcome.retryAfterMs };
}
