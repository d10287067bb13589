/** session-resume-api/webhooks/metrics: prom-client, an optional peer only this subpath imports (a Worker bundle never resolves it). */
import { Counter, type Registry } from 'prom-client';
import { eventResultOf, type ReceiverMetrics } from '../receiver-metrics.js';

export type { HandlerRunResult, ReceiverEventResult, ReceiverMetrics } from '../receiver-metrics.js';
// What `answered` is told, so that it can be named from this entry too.
export type { ErrorStatus, ReceiveResult } from '../answers.js';
export type { ApiComponents, ErrorBody, WebhookAck } from '@session-resume-api/runtime/types';

/** The counter `name` of `registry`: the one already there (another receiver's), or a new one. */
function counter(registry: Registry, name: string, help: string): Counter<'result'> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<'result'>;
  return new Counter({ name, help, labelNames: ['result'], registers: [registry] });
}

/**
 * Creates (or reuses) `session_resume_receiver_events_total{result}` and
 * `session_resume_receiver_handler_runs_total{result}` in `registry`; receivers may share one.
 * @example const receiver = createWebhookReceiver({ store, onEvent, metrics: createReceiverMetrics(register) });
 */
export function createReceiverMetrics(registry: Registry): ReceiverMetrics {
  if (typeof registry?.getSingleMetric !== 'function')
    throw new TypeError('createReceiverMetrics: registry must be a prom-client Registry (new Registry() or its default register)');
  const events = counter(
    registry,
    'session_resume_receiver_events_total',
    'Webhook deliveries received, by result: new, duplicate, invalid, unauthorized, unavailable.',
  );
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
