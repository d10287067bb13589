/** How a process (the server or a worker) stops: once, on SIGTERM or SIGINT, within a bound. */
import type { Logger } from 'pino';

/** In-flight requests and pending webhooks get this long after SIGTERM before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 10_000;

/** What the delivery engine gets to finish its attempts: the grace less room for the steps after it. */
export const DELIVERY_CLOSE_MS = SHUTDOWN_GRACE_MS - 2000;

/** What it gets while Redis is unreachable: an attempt's outcome could not be recorded anyway (its job stays in Redis). */
export const REDIS_DOWN_CLOSE_MS = 1000;

/**
 * Waits for the first SIGTERM or SIGINT, then runs `stop`. A repeated signal does nothing; past
 * SHUTDOWN_GRACE_MS the process exits 1.
 * @example await untilStopped(logger, async () => { await engine.close(); }); process.exit(0);
 */
export function untilStopped(logger: Logger, stop: () => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down: no new connections, finishing in-flight work');
      const force = setTimeout(() => {
        // Still the last line of every stop, so a log reader finds the end of each run.
        logger.error({ graceMs: SHUTDOWN_GRACE_MS }, 'stopped: the shutdown took too long, exiting anyway');
        process.exit(1);
      }, SHUTDOWN_GRACE_MS);
      force.unref();
      stop().then(resolve, reject);
    };
    // `on`, not `once`: a repeated signal must not fall back to the default (exit at once).
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
