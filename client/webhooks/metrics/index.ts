/**
 * session-resume-api/webhooks/metrics: the receiver's Prometheus counters in a prom-client
 * `Registry`. prom-client is an optional peer dependency that only this subpath imports, so a
 * receiver without metrics never reaches it (and a Worker bundle never has to resolve it).
 */
import { Counter, type Registry } from 'prom-client';
import { eventResultOf, type ReceiverMetrics } from '../receiver-metrics.js';

export type { HandlerRunResult, ReceiverEventResult, ReceiverMetrics } from '../receiver-metrics.js';

/** The counter `name` of `registry`: the one already there (another receiver's), or a new one. */
function counter(registry: Registry, name: string, help: string): Counter<'result'> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<'result'>;
  return new Counter({ name, help, labelNames: ['result'], registers: [registry] });
}

/**
 * Creates (or reuses) the receiver's two counters in `registry`:
 * `session_resume_receiver_events_total{result}` (new, duplicate, invalid, unauthorized,
 * unavailable) and `session_resume_receiver_handler_runs_total{result}` (ok, failed, stale).
 * Several receivers may share one registry.
 *
 * @param registry - a prom-client `Registry` (its default `register` too)
 * @example
 * import { register } from 'prom-client';
 * import { createReceiverMetrics } from 'session-resume-api/webhooks/metrics';
 * const receiver = createWebhookReceiver({ store, onEvent, metrics: createReceiverMetrics(register) });
 */
export function createReceiverMetrics(registry: Registry): ReceiverMetrics {
  if (typeof registry?.getSingleMetric !== 'function') throw new TypeError('createReceiverMetrics: registry must be a prom-client Registry (new Registry() or its default register)');
  const events = counter(registry, 'session_resume_receiver_events_total', 'Webhook deliveries received, by result: new, duplicate, invalid, unauthorized, unavailable.');
  const runs = counter(registry, 'session_resume_receiver_handler_runs_total', 'Runs of the onEvent handler, by result: ok, failed, stale.');
  return {
    answered(result) {
      const label = eventResultOf(result);
      if (label) events.inc({ result: label });
    },
    handlerRan(result) {
      runs.inc({ result });
    },
  };
}
