/**
 * With WEBHOOK_HEALTH_NOTIFY_URL, each endpoint state change this instance makes, and its first
 * event past the held backlog's bound in an outage, is POSTed to the operator, signed like a delivery.
 */
import type { Logger } from 'pino';
import type { ServerConfig } from '../config.js';
import type { EndpointHealthOptions } from '../webhooks/endpoint-circuit.js';
import { ENDPOINT_HEALTH_POLICY } from '../webhooks/endpoint-health-policy.js';
import { createEndpointNotifier } from '../webhooks/endpoint-notifier.js';

/** `{ endpointHealth }` for a delivery's options: the contract's figures with the configured bound, and the notifier with a notification URL. */
export function endpointHealthSettings(webhook: ServerConfig['webhook'], ca: Buffer | undefined, logger: Logger): { endpointHealth?: EndpointHealthOptions } {
  if (!webhook) return {};
  const policy = { ...ENDPOINT_HEALTH_POLICY, maxHeldEvents: webhook.maxHeldEvents };
  if (!webhook.notifyUrl) return { endpointHealth: { policy } };
  const notifier = createEndpointNotifier({
    url: webhook.notifyUrl,
    allowPrivate: webhook.allowPrivate,
    insecureLocalhost: webhook.insecureLocalhost === true,
    secret: webhook.secret,
    ...(ca ? { ca } : {}),
    logger,
  });
  return { endpointHealth: { policy, onChange: notifier.notify, onOverflow: notifier.overflowed } };
}
