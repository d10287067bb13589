/** The Node adapter: `http.createServer(handler)` or an express route handler over the `receive` core. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReceiveResult } from './answers.js';
import type { ReceiverLogger } from './receiver-logger.js';
import { ANSWER_HEADERS, checkRequestLine, tooLarge, UNEXPECTED_FAILURE, type RequestLimits } from './request-checks.js';

/** A request handler for node:http and express (a `next` argument is accepted and never called). */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

interface AdapterOptions extends RequestLimits {
  receive(rawBody: string | Uint8Array, headers: IncomingMessage['headers']): Promise<ReceiveResult>;
  /** Where a failure answered 500 is logged. */
  logger?: ReceiverLogger | undefined;
}

/** Resolves 'too_large' as soon as `limit` bytes are exceeded. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (value: Buffer | 'too_large' | 'aborted') => {
      if (done) return;
      done = true;
      req.off('data', onData);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop buffering; the rest is drained so the 413 can still be written.
        chunks.length = 0;
        req.resume();
        finish('too_large');
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => finish(Buffer.concat(chunks)));
    req.once('error', () => finish('aborted'));
    req.once('close', () => finish(req.complete ? Buffer.concat(chunks) : 'aborted'));
  });
}

/**
 * express.raw() leaves a Buffer, express.text() a string, express.json() an object (re-serialised:
 * validation and the dedupe key read fields, not bytes); otherwise the stream is read here.
 */
async function bodyOf(req: IncomingMessage & { body?: unknown }, limit: number) {
  const parsed = req.body;
  if (Buffer.isBuffer(parsed) || parsed instanceof Uint8Array) return parsed;
  if (typeof parsed === 'string') return parsed;
  if (parsed !== undefined && parsed !== null && req.readableEnded) return JSON.stringify(parsed);
  if (req.readableEnded) return Buffer.alloc(0);
  return readBody(req, limit);
}

function send(res: ServerResponse, result: ReceiveResult): void {
  if (res.headersSent) return;
  res.writeHead(result.status, ANSWER_HEADERS[result.status]).end(JSON.stringify(result.body));
}

/** The adapter over `receive`. */
export function createNodeHandler({ receive, urlToken, maxBodyBytes, logger }: AdapterOptions): NodeHandler {
  return (req, res) => {
    void (async () => {
      // express keeps the full path in originalUrl when the route is mounted under a prefix.
      const url = (req as { originalUrl?: string }).originalUrl ?? req.url;
      // Checked before the body is read (x-decisions: webhook-signing): nothing is recorded.
      const lineRefusal = checkRequestLine({ method: req.method, url, contentLength: req.headers['content-length'] }, { urlToken, maxBodyBytes });
      if (lineRefusal) {
        req.resume();
        return lineRefusal;
      }
      const body = await bodyOf(req, maxBodyBytes);
      if (body === 'too_large') return tooLarge(maxBodyBytes);
      if (body === 'aborted') return undefined;
      return receive(body, req.headers);
    })().then(
      (result) => {
        if (result) send(res, result);
      },
      // Not reachable by input (receive never throws): logged, and answered so that the sender retries.
      (err: unknown) => {
        logger?.error?.({ err }, 'webhook receiver failed; answered 503 so that the sender retries');
        send(res, UNEXPECTED_FAILURE);
      },
    );
  };
}
