/** `createWebhookReceiver` wires the core (receive-core.ts), the processing and the node and web adapters together. */
import { cancelsWorkAfterAnswer, type AfterAnswer } from './after-answer.js';
import type { ReceiveResult } from './answers.js';
import { receiverLogger } from './console-logger.js';
import { createNodeHandler } from './node-handler.js';
import { createEventProcessor, failureReporter } from './processing.js';
import { createReceive } from './receive-core.js';
import { ANSWER_HEADERS, checkRequestLine } from './request-checks.js';
import { resolveReceiverOptions, type WebhookReceiver, type WebhookReceiverOptions } from './receiver-options.js';
import { createSignatureVerifier } from './verify-signature.js';
import { createFetchHandler } from './web-handler.js';
import type { WebhookHeaders } from './webhook-headers.js';

/**
 * Creates a webhook receiver over `store`. Throws `OptionsError` (a TypeError) for a bad option.
 * @example
 * const receiver = createWebhookReceiver({
 *   store: createMemoryEventStore(),
 *   onEvent: async (event, { attempt }) => console.log(event.event, event.session?.id, attempt),
 * });
 * createServer(receiver.handler).listen(3001);
 * // web Requests (Hono, Next.js, Bun, Deno, Workers), with the platform's waitUntil where it has one:
 * // export default { fetch: (request, env, ctx) => receiver.fetch(request, ctx) };
 */
export function createWebhookReceiver(options: WebhookReceiverOptions): WebhookReceiver {
  const receiverOptions = resolveReceiverOptions(options);
  const { store, urlToken, maxBodyBytes } = receiverOptions;
  const logger = receiverLogger(receiverOptions.logger);
  const verify = receiverOptions.secret === undefined ? undefined : createSignatureVerifier(receiverOptions.secret);
  const { metrics } = receiverOptions;

  store.start({
    windowSeconds: receiverOptions.dedupeWindowSeconds,
    maxAttempts: receiverOptions.maxAttempts,
    retryDelayMs: receiverOptions.retryDelayMs,
    process: createEventProcessor(receiverOptions, logger, metrics),
    onStoreError: (error, what) => logger?.warn?.({ err: error }, what),
    onFailure: failureReporter(receiverOptions, logger),
  });

  const receive = createReceive({ store, verify, maxBodyBytes, logger, holdAnswer: cancelsWorkAfterAnswer() });
  const counted = metrics
    ? async (rawBody: string | Uint8Array, headers?: WebhookHeaders, context?: AfterAnswer): Promise<ReceiveResult> => {
        const result = await receive(rawBody, headers, context);
        metrics.answered(result);
        return result;
      }
    : receive;
  let closing: Promise<void> | undefined;
  return {
    receive: counted,
    handler: createNodeHandler({ receive: counted, urlToken, maxBodyBytes, logger }),
    fetch: createFetchHandler({ receive: counted, urlToken, maxBodyBytes, logger }),
    answer: async (request, context) => {
      const result =
        checkRequestLine({ method: request.method, url: request.url, contentLength: undefined }, { urlToken, maxBodyBytes }) ??
        (await counted(request.body ?? '', request.headers, context));
      return { ...result, headers: ANSWER_HEADERS[result.status] };
    },
    deadLetters: () => store.deadLetters(),
    retryDeadLetter: (id) => store.retryDeadLetter(id),
    close: () => (closing ??= store.close()),
  };
}
