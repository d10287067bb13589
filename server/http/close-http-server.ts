/**
 * Graceful close (SIGTERM). `server.close()` alone leaves a keep-alive connection that was busy at
 * that moment open for as long as its client reuses it, so a polling health check keeps seeing the server up.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** How often connections idle since the close began are closed, in ms. */
export const DEFAULT_IDLE_SWEEP_MS = 100;

/** Options of `closeHttpServer`. */
export interface CloseHttpServerOptions {
  /**
   * How often connections that finished their answer are closed, in ms.
   * @defaultValue {@link DEFAULT_IDLE_SWEEP_MS} (100)
   */
  idleSweepMs?: number;
}

/**
 * Stops accepting; every answer from now says `Connection: close` (RFC 9112 §9.6) so clients move to
 * another instance, and connections close once idle. Resolves when all are closed; in-flight requests finish first.
 * @example process.on('SIGTERM', () => closeHttpServer(server).then(() => process.exit(0)));
 */
export function closeHttpServer(server: Server, { idleSweepMs = DEFAULT_IDLE_SWEEP_MS }: CloseHttpServerOptions = {}): Promise<void> {
  const lastAnswer = (_req: IncomingMessage, res: ServerResponse) => res.setHeader('Connection', 'close');
  // Before the app's listeners: the app may answer within the same call.
  for (const event of ['request', 'checkContinue', 'checkExpectation']) server.prependListener(event, lastAnswer);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // A connection busy at close() is closed on the next sweep after its answer, not after the keep-alive timeout.
  const sweep = setInterval(() => server.closeIdleConnections(), idleSweepMs);
  sweep.unref();
  return closed.finally(() => clearInterval(sweep));
}
