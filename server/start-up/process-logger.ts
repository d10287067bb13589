/**
 * The log of a process this package starts. Synchronous writes: pino's asynchronous default can
 * reorder lines at exit, so `stopped` would not always be the last line of a stop. The lines of one
 * event-loop turn go out in one write at the end of that turn (and at exit): one system call per
 * access-log line was the largest cost the server adds to the resume path (BENCHMARKS.md).
 */
import { pino, type DestinationStream, type Logger } from 'pino';

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
  return pino({ level: options.level, ...base }, turnBatchedDestination(options.fd ?? 1));
}

// A turn that has written at least this many characters of lines writes them at once: the lines
// held in memory stay bounded however many a turn logs.
const TURN_BUFFER_CHARS = 8192;

// No event loop is left at exit: held lines go out synchronously, before the process ends (one
// listener for every logger of the process).
const held = new Set<{ flushSync(): void }>();
process.once('exit', () => {
  // Every logger gets its turn even when one cannot write; the first failure is thrown after.
  const failures: unknown[] = [];
  for (const destination of held) {
    try {
      destination.flushSync();
    } catch (err) {
      failures.push(err);
    }
  }
  if (failures.length) throw new Error('the log could not be written at exit', { cause: failures[0] });
});

/**
 * Lines written synchronously, in order, once per event-loop turn; whatever is held is written at exit.
 * The turn's lines are kept here and joined once: sonic-boom's own buffer (`minLength`) measures
 * its whole buffer again on every write, which cost more than formatting the line
 * (BENCHMARKS.md, resume as users start them).
 */
function turnBatchedDestination(fd: 1 | 2): DestinationStream {
  const destination = pino.destination({ dest: fd, sync: true });
  let lines: string[] = [];
  let chars = 0;
  let scheduled = false;
  const flush = () => {
    if (lines.length === 0) return;
    const chunk = lines.length === 1 ? lines[0]! : lines.join('');
    lines = [];
    chars = 0;
    destination.write(chunk);
  };
  held.add({ flushSync: flush });
  const endOfTurn = () => {
    scheduled = false;
    flush();
  };
  return {
    write(line: string) {
      lines.push(line);
      chars += line.length;
      if (chars >= TURN_BUFFER_CHARS) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(endOfTurn);
      }
    },
  };
}
