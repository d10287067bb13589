/**
 * The Node adapter of the receiver: `http.createServer(handler)` or an express route
 * handler. It checks method and URL token, reads the raw body under the size limit and
 * hands it to the framework-free `receive` core.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorResult as fail, type ReceiveResult } from './answers.js';
import { tokenFromUrl, urlTokensEqual } from './url-token.js';

/** A request handler for node:http and express (a `next` argument is accepted and never called). */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

interface AdapterOptions {
  receive(rawBody: string | Uint8Array, headers: IncomingMessage['headers']): Promise<ReceiveResult>;
  urlToken: string | undefined;
  maxBodyBytes: number;
}

/** Reads the request body up to `limit` bytes; resolves 'too_large' as soon as it is exceeded. */
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
 * The body as the core needs it. Express parsers may have run first: express.raw() leaves a
 * Buffer, express.text() a string, express.json() an object (re-serialised: validation and
 * the dedupe key read fields, not bytes). Otherwise the stream is read here.
 */
async function bodyOf(req: IncomingMessage & { body?: unknown }, limit: number) {
  const parsed = req.body;
  if (Buffer.isBuffer(parsed) || parsed instanceof Uint8Array) return parsed;
  if (typeof parsed === 'string') return parsed;
  if (parsed !== undefined && parsed !== null && req.readableEnded) return JSON.stringify(parsed);
  if (req.readableEnded) return Buffer.alloc(0);
  return readBody(req, limit);
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
/** The headers of each answer status, built once: one `writeHead` instead of a `setHeader` each. */
const HEADERS: Readonly<Partial<Record<ReceiveResult['status'], Readonly<Record<string, string>>>>> = {
  200: JSON_HEADERS,
  405: { ...JSON_HEADERS, allow: 'POST' },
  413: { ...JSON_HEADERS, connection: 'close' },
  503: { ...JSON_HEADERS, 'retry-after': '5' },
};

function send(res: ServerResponse, result: ReceiveResult): void {
  if (res.headersSent) return;
  res.writeHead(result.status, HEADERS[result.status] ?? JSON_HEADERS).end(JSON.stringify(result.body));
}

/** Builds the adapter over `receive`. */
export function createNodeHandler({ receive, urlToken, maxBodyBytes }: AdapterOptions): NodeHandler {
  return (req, res) => {
    void (async () => {
      // express keeps the full path in originalUrl when the route is mounted under a prefix.
      const url = (req as { originalUrl?: string }).originalUrl ?? req.url;
      // x-decisions: webhook-signing — checked before the body is read; nothing is recorded.
      if (urlToken !== undefined && !urlTokensEqual(urlToken, tokenFromUrl(url))) {
        req.resume();
        return fail(404, 'not_found', 'Not found.');
      }
      if (req.method !== 'POST') {
        req.resume();
        return fail(405, 'method_not_allowed', `Method ${req.method} is not allowed: session events are POSTed.`);
      }
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBodyBytes) {
        req.resume();
        return fail(413, 'payload_too_large', `The body has ${declared} bytes; this receiver accepts at most ${maxBodyBytes}.`);
      }
      const body = await bodyOf(req, maxBodyBytes);
      if (body === 'too_large') {
        return fail(413, 'payload_too_large', `The body is larger than ${maxBodyBytes} bytes, the most this receiver accepts.`);
      }
      if (body === 'aborted') return undefined;
      return receive(body, req.headers);
    })().then(
      (result) => {
        if (result) send(res, result);
      },
      // Not reachable by input (receive never throws); answer so that the sender retries.
      () => send(res, fail(503, 'service_unavailable', 'Unexpected receiver failure; retry later.')),
    );
  };
}
