/** The Node HTTP server around the app, with timeouts lowered from Node's defaults (issue #3). */
import { createServer, type RequestListener, type Server } from 'node:http';

/** Timeouts in ms. */
export interface HttpServerOptions {
  /** Time to receive the request headers (default 10 000; Node: 60 000). */
  headersTimeoutMs?: number;
  /** Time to receive the whole request (default 30 000; Node: 300 000). */
  requestTimeoutMs?: number;
  /** Idle keep-alive time (default 5 000, Node's). */
  keepAliveTimeoutMs?: number;
}

/**
 * Creates (does not start) the server. Node enforces the header and request timeouts only
 * when it checks its connections, every 30 s by default; checking every second keeps the
 * timeouts close to their values.
 */
export function createHttpServer(app: RequestListener, options: HttpServerOptions = {}): Server {
  const server = createServer({ connectionsCheckingInterval: 1000 }, app);
  server.headersTimeout = options.headersTimeoutMs ?? 10_000;
  server.requestTimeout = options.requestTimeoutMs ?? 30_000;
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  return server;
}
