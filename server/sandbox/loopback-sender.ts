/**
 * Webhook delivery to a plain-HTTP receiver on the developer's machine, for sandbox mode only
 * (x-decisions in spec/sandbox.yaml: sandbox-webhooks). The URL must pass `validateWebhookUrl`
 * with `allowLoopbackHttp`, so only localhost and loopback addresses are ever reached.
 */
import type { Logger } from 'pino';
import { DELIVERY_TIMEOUT_MS } from '../../spec/delivery/deliver-event.js';
import { validateWebhookUrl } from '../../spec/webhook-url.js';
import type { SessionEvent } from '../../spec/types.js';
import type { WebhookSender } from '../webhooks/webhook-sender.js';

/** Options of `createLoopbackSender`. */
export interface LoopbackSenderOptions {
  /** An http:// (or https://) URL on localhost or a loopback address. */
  url: string;
  /** Where deliveries are logged. */
  logger: Logger;
  /** Attempts per event (default 3). */
  maxAttempts?: number;
  /** Wait before retry n is `n × retryDelayMs` (default 1000 ms). */
  retryDelayMs?: number;
}

/**
 * Creates the sender; throws a TypeError when the URL is not a loopback receiver.
 * @example createLoopbackSender({ url: 'http://localhost:8080/hooks', logger }).enqueue(event)
 */
export function createLoopbackSender(options: LoopbackSenderOptions): WebhookSender {
  const check = validateWebhookUrl(options.url, { allowLoopbackHttp: true });
  if (!check.ok || check.url.protocol !== 'http:') {
    throw new TypeError(`The sandbox delivers over plain HTTP only to localhost or a loopback address: ${check.ok ? options.url : check.reason}`);
  }
  const url = check.url.href;
  const maxAttempts = options.maxAttempts ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 1000;
  const logger = options.logger.child({ webhook: check.url.origin });
  const pending = new Set<Promise<void>>();
  let closing = false;

  const attempt = async (body: string): Promise<string | undefined> => {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      await response.body?.cancel().catch(() => undefined);
      return response.status === 200 ? undefined : `answered ${response.status} (only 200 counts)`;
    } catch (error) {
      return (error as Error).message;
    }
  };
  const deliver = async (event: SessionEvent) => {
    const body = JSON.stringify(event);
    for (let n = 1; n <= maxAttempts; n++) {
      const failure = await attempt(body);
      if (failure === undefined) return void logger.info({ sessionId: event.session.id, attempt: n }, 'webhook delivered');
      logger.warn({ sessionId: event.session.id, attempt: n, failure }, 'webhook attempt failed');
      if (closing || n === maxAttempts) return;
      await new Promise((resolve) => setTimeout(resolve, n * retryDelayMs).unref());
    }
  };
  return {
    enqueue(event) {
      if (closing) return;
      const task = deliver(structuredClone(event)).finally(() => pending.delete(task));
      pending.add(task);
    },
    async close() {
      closing = true;
      await Promise.allSettled([...pending]);
    },
  };
}
