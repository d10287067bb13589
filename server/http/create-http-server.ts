/** The Node HTTP server around the app, with timeouts lowered from Node's defaults (x-decisions: connection-limits). */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from '../errors/error-answer.js';
import type { ErrorCode } from '../errors/http-error.js';
import { markContinuePending } from './expect-continue.js';

/** Timeouts in ms. */
export interface HttpServerOptions {
  /**
   * Time to receive the request headers (Node's own: 60 000).
   * @defaultValue 10 000
   */
  headersTimeoutMs?: number;
  /**
   * Time to receive the whole request (Node's own: 300 000).
   * @defaultValue 30 000
   */
  requestTimeoutMs?: number;
  /**
   * Idle keep-alive time.
   * @defaultValue 5 000, Node's
   */
  keepAliveTimeoutMs?: number;
}

/**
 * Creates (does not start) the server. Node checks the header and request timeouts only every
 * `connectionsCheckingInterval` (30 s by default), so it is 1 s here. Errors Node answers before the
 * app runs (slow client, oversized headers, bad HTTP) get the spec's Error body too.
 */
export function createHttpServer(app: RequestListener, options: HttpServerOptions = {}): Server {
  const answering = createAnswerTracker(app);
  // The app answers a missing Host itself, in the Error body (Node's own answer is an empty 400).
  const server = createServer({ connectionsCheckingInterval: 1000, requireHostHeader: false }, answering.listener);
  server.headersTimeout = options.headersTimeoutMs ?? 10_000;
  server.requestTimeout = options.requestTimeoutMs ?? 30_000;
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket, answering.headersSentOn(socket)));
  // Expect: 100-continue: the app sends the 100 once the key and the length passed (request guard).
  server.on('checkContinue', (req, res) => {
    markContinuePending(req);
    answering.listener(req, res);
  });
  // Another expectation: served as if absent (RFC 9110 §10.1.1 allows a 417, Node's is an empty body).
  server.on('checkExpectation', (req, res) => answering.listener(req, res));
  return server;
}

/**
 * The last answer on each connection, so a client error can tell whether the app's answer has begun
 * (headers sent, answer not finished). Read from the answer itself: no listener per request.
 */
function createAnswerTracker(app: RequestListener) {
  const current = new WeakMap<object, ServerResponse>();
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    current.set(req.socket, res);
    app(req, res);
  };
  const headersSentOn = (socket: Duplex) => {
    const res = current.get(socket);
    return res !== undefined && res.headersSent && !res.writableFinished;
  };
  return { listener, headersSentOn };
}

// Node's answers without a listener (node:http "Event: 'clientError'"), with the spec's Error body.
const CLIENT_ERRORS: Record<string, [number, string, ErrorCode, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [
    408,
    'Request Timeout',
    'request_timeout',
    'The request did not arrive in time: send the headers within 10 s and the whole request within 30 s.',
  ],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'header_too_large', 'The request headers are too large.'],
};

function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, answerBegun: boolean): void {
  // As Node's default handler: nothing can be answered on a reset connection or once the app's answer began.
  if (err.code === 'ECONNRESET' || !socket.writable || answerBegun) {
    socket.destroy();
    return;
  }
  const [status, reason, error, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Bad Request', 'bad_request', 'The request is not valid HTTP/1.1.'];
  const body = JSON.stringify(errorBody(error, message));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` + `Connection: close\r\n\r\n${body}`,
  );
}
