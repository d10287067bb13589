/**
 * The web adapter of the receiver: `receiver.fetch(request)` for anything that speaks the
 * Fetch API's `Request` and `Response` (Hono, Next.js route handlers, Bun.serve, Deno.serve,
 * Cloudflare Workers). The same checks and answers as the Node adapter; web-platform APIs only.
 */
import { checkAfterAnswer, type AfterAnswer } from './after-answer.js';
import type { ReceiveResult } from './answers.js';
import type { ReceiverLogger } from './receiver-options.js';
import { ANSWER_HEADERS, checkRequestLine, tooLarge, UNEXPECTED_FAILURE, type RequestLimits } from './request-checks.js';
import type { WebhookHeaders } from './webhook-headers.js';

/**
 * `(request, context?) => response`, as web frameworks and runtimes call it; `context` keeps the
 * processing alive after the answer (Workers' `ctx`, Vercel's `{ waitUntil }`, Next.js's
 * `{ waitUntil: after }`).
 */
export type FetchHandler = (request: Request, context?: AfterAnswer) => Promise<Response>;

interface WebAdapterOptions extends RequestLimits {
  receive(rawBody: string | Uint8Array, headers: WebhookHeaders, context?: AfterAnswer): Promise<ReceiveResult>;
  /** Where a failure answered 503 is logged. */
  logger?: ReceiverLogger | undefined;
}

/**
 * Reads the body up to `limit` bytes; 'too_large' as soon as it is exceeded. With a declared
 * length (already checked against the limit) the body is read whole by `arrayBuffer()`, which
 * servers such as @hono/node-server serve from the socket without building a web stream;
 * without one it is streamed, and reading stops past the limit.
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

/** The path and query of a request URL (`request.url` is absolute). */
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
      const refused = checkRequestLine({ method: request.method, url, contentLength: request.headers.get('content-length') }, { urlToken, maxBodyBytes });
      if (refused) return toResponse(refused);
      const body = await readBody(request, maxBodyBytes);
      return toResponse(body === 'too_large' ? tooLarge(maxBodyBytes) : await receive(body, request.headers, context));
    } catch (err) {
      // The body stream failed (the client went away) or something no input can cause.
      logger?.error?.({ err }, 'webhook receiver failed; answered 503 so that the sender retries');
      return toResponse(UNEXPECTED_FAILURE);
    }
  };
}
