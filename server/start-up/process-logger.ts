/**
 * The log of a process this package starts. Synchronous writes: pino's asynchronous default can
 * reorder lines at exit, so `stopped` would not always be the last line of a stop.
 */
import { pino, type Logger } from 'pino';

/** Options of `createProcessLogger`. */
export interface ProcessLoggerOptions {
  /** pino level (`LOG_LEVEL`). */
  level: string;
  /**
   * The `service` field of every line.
   * @defaultValue none: no `service` or `pid` field
   */
  service?: string;
  /**
   * Where the lines go: 1 for stdout, 2 for stderr.
   * @defaultValue `1`
   */
  fd?: 1 | 2;
}

/**
 * @example const logger = createProcessLogger({ level: 'info', service: 'session-resume-api' });
 */
export function createProcessLogger(options: ProcessLoggerOptions): Logger {
  const base = options.service ? { base: { service: options.service, pid: process.pid } } : {};
  return pino({ level: options.level, ...base }, pino.destination({ dest: options.fd ?? 1, sync: true }));
}
