/**
 * The operator's notification of an endpoint's change of state, and of its held backlog found
 * full (x-decisions: endpoint-health): an `EndpointNotice` (spec/openapi.yaml) POSTed once to
 * the operator's URL, with the same Standard Webhooks headers and secret as a delivery. One
 * attempt, never retried: a failure is logged, and the log line and the metric stand either way.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { deliverEvent } from '@session-resume-api/runtime/delivery/deliver-event';
import { createWebhookHeaders } from '@session-resume-api/runtime/delivery/webhook-headers';
import type { EndpointNotice } from '@session-resume-api/runtime/types';
import type { EndpointChange } from './endpoint-circuit.js';
import type { HeldOverflow } from './endpoint-backlog.js';
import type { DeliveryTarget } from './delivery-engine.js';

/** Options of `createEndpointNotifier`: the operator's URL, checked and signed like the endpoint's. */
export interface EndpointNotifierOptions extends Pick<DeliveryTarget, 'allowPrivate' | 'insecureLocalhost' | 'ca' | 'lookup' | 'secret' | 'timeoutMs'> {
  /** The operator's https:// URL. */
  url: string;
  logger: Logger;
}

/**
 * Returns the change and overflow hooks that notify the operator (an overflow only when it is
 * the instance's first since the endpoint last delivered); `sent` resolves when every notice
 * under way is answered.
 * @example const { notify, overflowed } = createEndpointNotifier({ url, secret, logger }); createRedisDelivery({ ...options, endpointHealth: { onChange: notify, onOverflow: overflowed } });
 */
export function createEndpointNotifier(options: EndpointNotifierOptions): {
  notify: (change: EndpointChange) => void;
  overflowed: (overflow: HeldOverflow) => void;
  sent: () => Promise<void>;
} {
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
  const post = (notice: EndpointNotice) => {
    const task = send(notice)
      .catch((err: unknown) => log.error({ err }, 'endpoint notice failed'))
      .finally(() => pending.delete(task));
    pending.add(task);
  };
  return {
    notify: (change) => post(noticeOf(change)),
    overflowed(overflow) {
      if (overflow.first) post(overflowNoticeOf(overflow));
    },
    async sent() {
      await Promise.allSettled([...pending]);
    },
  };
}

function noticeOf(change: EndpointChange): EndpointNotice {
  return {
    event: 'webhook.endpoint.state_changed',
    endpoint: change.endpoint,
    from: change.from,
    to: change.to,
    ...healthFields(change.health),
    timestamp: change.at,
  };
}

function overflowNoticeOf(overflow: HeldOverflow): EndpointNotice {
  const { health } = overflow;
  return {
    event: 'webhook.endpoint.backlog_full',
    endpoint: overflow.endpoint,
    from: health.state,
    to: health.state,
    ...healthFields(health),
    maxHeldEvents: overflow.maxHeldEvents,
    timestamp: overflow.at,
  };
}

/** The notice's fields read from the shared state: the reason while not closed, the streak, the next probe. */
function healthFields(health: EndpointChange['health']): Pick<EndpointNotice, 'reason' | 'streak' | 'nextProbeAt'> {
  return {
    ...(health.reason && health.state !== 'closed' ? { reason: health.reason } : {}),
    streak: health.streak,
    ...(health.nextProbeAt !== undefined ? { nextProbeAt: new Date(health.nextProbeAt).toISOString() } : {}),
  };
}
