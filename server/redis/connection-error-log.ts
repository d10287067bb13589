/**
 * One log line per Redis outage, not one per reconnection attempt of every connection: the first
 * error is logged, the rest counted until Redis answers again. A refused login is always logged.
 */
import type { Logger } from 'pino';
import { redisAuthCode } from './redis-auth-failure.js';

/** Where the Redis-backed parts report their connection errors. */
export interface ConnectionErrorLog {
  /** Logged when it starts an outage or is a refused login. */
  report(source: string, error: Error): void;
  recovered(): void;
  /** Stops logging connection errors (at shutdown). */
  silence(): void;
  /** True from the first error of an outage until `recovered()`. */
  readonly down: boolean;
}

/**
 * Creates the log over `logger`; `setting` is where the credentials are (default `REDIS_URL`).
 * @example const errors = createConnectionErrorLog(logger); redis.on('error', (e) => errors.report('store', e)); redis.on('ready', errors.recovered);
 */
export function createConnectionErrorLog(logger: Logger, options: { setting?: 'REDIS_URL' | 'REDIS_CLUSTER_NODES' } = {}): ConnectionErrorLog {
  const setting = options.setting ?? 'REDIS_URL';
  let down = false;
  let silenced = false;
  let suppressed = 0;
  return {
    report(source, error) {
      if (silenced) return;
      const code = redisAuthCode(error);
      if (code !== undefined) {
        logger.error({ source, code }, `Redis refused to authenticate (${code}): check the credentials in ${setting}`);
      } else if (down) {
        suppressed++;
        return;
      } else {
        logger.warn(
          { source, err: error.message },
          `Redis unreachable (${error.message}): retrying every second; further connection errors are counted, not logged, until it answers`,
        );
      }
      down = true;
    },
    recovered() {
      if (!down) return;
      down = false;
      if (!silenced) logger.info({ suppressedErrors: suppressed }, 'Redis answers again');
      suppressed = 0;
    },
    silence() {
      silenced = true;
    },
    get down() {
      return down;
    },
  };
}
