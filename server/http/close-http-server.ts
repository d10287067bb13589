/**
 * Graceful close of the HTTP server (SIGTERM). `server.close()` alone stops accepting and
 * closes the connections idle at that moment, but a keep-alive connection busy at that moment
 * stays open afterwards and keeps being served for as long as its client reuses it: a health
 * check polling every 50 ms kept a stopping server "up" until the forced exit cut the
 * in-flight requests it was waiting for (seen in the multi-process test).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** How often connections that became idle during the close are closed, in ms. */
export const DEFAULT_IDLE_SWEEP_MS = 100;

/** Options of `closeHttpServer`. */
export interface CloseHttpServerOptions {
  /**
   * Interval at which connections that finished their answer are closed, in ms.
   * @defaultValue {@link DEFAULT_IDLE_SWEEP_MS} (100)
   */
  idleSweepMs?: number;
}

/**
 * Stops accepting connections; every answer that starts from now on says `Connection: close`
 * (RFC 9112 §9.6), so clients move to another instance; connections are closed as soon as
 * they are idle. Resolves once every connection is closed; in-flight requests finish first.
 *
 * @param server - the server from `createHttpServer`
 * @param options - each one's default is on {@link CloseHttpServerOptions}
 * @example
 * process.on('SIGTERM', async () => {
 *   await closeHttpServer(server);
 *   process.exit(0);
 * });
 */
export function closeHttpServer(server: Server, { idleSweepMs = DEFAULT_IDLE_SWEEP_MS }: CloseHttpServerOptions = {}): Promise<void> {
  const lastAnswer = (_req: IncomingMessage, res: ServerResponse) => res.setHeader('Connection', 'close');
  // Before the app's listeners: the app may answer within the same call.
  for (const event of ['request', 'checkContinue', 'checkExpectation']) server.prependListener(event, lastAnswer);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // A connection busy when close() ran becomes idle once its answer is sent (the client may
  // keep it): closed on the next sweep instead of after the keep-alive timeout.
  const sweep = setInterval(() => server.closeIdleConnections(), idleSweepMs);
  sweep.unref();
  return closed.finally(() => clearInterval(sweep));
}
