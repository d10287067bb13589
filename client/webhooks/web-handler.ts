/** `receiver.fetch(request)` for anything speaking Fetch's `Request`/`Response`; the Node adapter's checks and answers. */
import { checkAfterAnswer, type AfterAnswer } from './after-answer.js';
import type { ReceiveResult } from './answers.js';
import type { ReceiverLogger } from './receiver-logger.js';
import { ANSWER_HEADERS, checkRequestLine, tooLarge, UNEXPECTED_FAILURE, type RequestLimits } from './request-checks.js';
import type { WebhookHeaders } from './webhook-headers.js';

/** `context` keeps the processing alive after the answer (Workers' `ctx`, Vercel's `{ waitUntil }`). */
export type FetchHandler = (request: Request, context?: AfterAnswer) => Promise<Response>;

interface WebAdapterOptions extends RequestLimits {
  receive(rawBody: string | Uint8Array, headers: WebhookHeaders, context?: AfterAnswer): Promise<ReceiveResult>;
  /** Where a failure answered 503 is logged. */
  logger?: ReceiverLogger | undefined;
}

/**
 * Reads the body up to `limit` bytes. A declared length (already checked) is read whole by
 * `arrayBuffer()`, which @hono/node-server serves from the socket without a web stream; otherwise
 * streamed, stopping past the limit.
 */
async function readBody(request: Request, limit: number): Promise<Uint8Array | 'too_large'> {
  if (request.headers.has('content-length')) {
    const body = new Uint8Array(await request.arrayBuffer());
    return body.byteLength > limit ? 'too_large' : body;
  }
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // A stream that cannot be cancelled has already failed or ended: the 413 stands either way.
      await reader.cancel().catch(() => {});
      return 'too_large';
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return url;
  }
}

/** A `Response` for an answer, with the headers the Node adapter sends. */
export function toResponse(result: ReceiveResult): Response {
  return new Response(JSON.stringify(result.body), { status: result.status, headers: ANSWER_HEADERS[result.status] });
}

/** Builds `fetch(request)` over the core's `receive`. */
export function createFetchHandler({ receive, urlToken, maxBodyBytes, logger }: WebAdapterOptions): FetchHandler {
  return async (request, context) => {
    checkAfterAnswer(context);
    try {
      // The URL is parsed only when a token is to be checked in it.
      const url = urlToken === undefined ? undefined : pathOf(request.url);
      const lineRefusal = checkRequestLine({ method: request.method, url, contentLength: request.headers.get('content-length') }, { urlToken, maxBodyBytes });
      if (lineRefusal) return toResponse(lineRefusal);
      const body = await readBody(request, maxBodyBytes);
      return toResponse(body === 'too_large' ? tooLarge(maxBodyBytes) : await receive(body, request.headers, context));
    } catch (err) {
      // The body stream failed (the client went away) or something no input can cause.
      logger?.error?.({ err }, 'webhook receiver failed; answered 503 so that the sender retries');
      return toResponse(UNEXPECTED_FAILURE);
    }
  };
}
