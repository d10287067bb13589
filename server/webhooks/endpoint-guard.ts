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
  // A 429 or 503 retry waits at least the receiver's Retry-After: the circuit's next probe does too.
  const asked = outcome.next.kind === 'retry' && (status === 429 || status === 503) ? outcome.next.delayMs : undefined;
  return { delivered: outcome.next.kind === 'delivered', status, retryAfterMs: asked };
}
