/**
 * The operator's notification of an endpoint's change of state (x-decisions: endpoint-health):
 * an `EndpointNotice` (spec/openapi.yaml) POSTed once to the operator's URL, with the same
 * Standard Webhooks headers and secret as a delivery. One attempt, never retried: a failure is
 * logged, and the log line and the metric of the change stand either way.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { deliverEvent } from '@session-resume-api/runtime/delivery/deliver-event';
import { createWebhookHeaders } from '@session-resume-api/runtime/delivery/webhook-headers';
import type { EndpointNotice } from '@session-resume-api/runtime/types';
import type { EndpointChange } from './endpoint-circuit.js';
import type { DeliveryTarget } from './delivery-engine.js';

/** Options of `createEndpointNotifier`: the operator's URL, checked and signed like the endpoint's. */
export interface EndpointNotifierOptions extends Pick<DeliveryTarget, 'allowPrivate' | 'insecureLocalhost' | 'ca' | 'lookup' | 'secret' | 'timeoutMs'> {
  /** The operator's https:// URL. */
  url: string;
  logger: Logger;
}

/**
 * Returns the change hook that notifies the operator; `sent` resolves when every notice under way is answered.
 * @example createRedisDelivery({ ...options, endpointHealth: { onChange: createEndpointNotifier({ url, secret, logger }).notify } });
 */
export function createEndpointNotifier(options: EndpointNotifierOptions): { notify: (change: EndpointChange) => void; sent: () => Promise<void> } {
  const headers = createWebhookHeaders({ secret: options.secret });
  const log = options.logger.child({ notify: new URL(options.url).origin });
  const pending = new Set<Promise<void>>();
  const send = async (notice: EndpointNotice) => {
    const result = await deliverEvent(options.url, notice, {
      allowPrivate: options.allowPrivate,
      insecureLocalhost: options.insecureLocalhost,
      ca: options.ca,
      lookup: options.lookup,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      headers: (body) => headers(`msg_${randomUUID()}`, body),
    });
    if (!result.delivered) log.error({ to: notice.to, detail: result.message }, 'endpoint notice not delivered to the operator');
  };
  return {
    notify(change) {
      const task = send(noticeOf(change))
        .catch((err: unknown) => log.error({ err }, 'endpoint notice failed'))
        .finally(() => pending.delete(task));
      pending.add(task);
    },
    async sent() {
      await Promise.allSettled([...pending]);
    },
  };
}

function noticeOf(change: EndpointChange): EndpointNotice {
  const { health } = change;
  return {
    event: 'webhook.endpoint.state_changed',
    endpoint: change.endpoint,
    from: change.from,
    to: change.to,
    ...(health.reason && health.state !== 'closed' ? { reason: health.reason } : {}),
    streak: health.streak,
    ...(health.nextProbeAt !== undefined ? { nextProbeAt: new Date(health.nextProbeAt).toISOString() } : {}),
    timestamp: change.at,
  };
}
