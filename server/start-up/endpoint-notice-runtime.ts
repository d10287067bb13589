/**
 * With WEBHOOK_HEALTH_NOTIFY_URL, each endpoint state change this instance makes, and its first
 * event past the held backlog's bound in an outage, is POSTed to the operator, signed like a delivery.
 */
import type { Logger } from 'pino';
import type { ServerConfig } from '../config.js';
import type { EndpointHealthOptions } from '../webhooks/endpoint-circuit.js';
import { createEndpointNotifier } from '../webhooks/endpoint-notifier.js';

/** `{ endpointHealth }` for a delivery's options: empty without a notification URL. */
export function endpointHealthSettings(webhook: ServerConfig['webhook'], ca: Buffer | undefined, logger: Logger): { endpointHealth?: EndpointHealthOptions } {
  if (!webhook?.notifyUrl) return {};
  const notifier = createEndpointNotifier({
    url: webhook.notifyUrl,
    allowPrivate: webhook.allowPrivate,
    insecureLocalhost: webhook.insecureLocalhost === true,
    secret: webhook.secret,
    ...(ca ? { ca } : {}),
    logger,
  });
  return { endpointHealth: { onChange: notifier.notify, onOverflow: notifier.overflowed } };
}
