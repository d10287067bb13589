/** The default reporter, so a receiver is never silent about its trouble: one stderr line per report, never a payload, header or secret. */
import type { ReceiverLogger } from './receiver-logger.js';

const PREFIX = 'session-resume-api receiver:';

/** The fields a report line may show, in this order. */
function details(obj: object): string {
  const fields = obj as { event?: unknown; sessionId?: unknown; attempt?: unknown; maxAttempts?: unknown; err?: unknown };
  const parts: string[] = [];
  if (typeof fields.event === 'string') parts.push(`event ${fields.event}`);
  if (typeof fields.sessionId === 'string') parts.push(`session ${fields.sessionId}`);
  if (typeof fields.attempt === 'number')
    parts.push(typeof fields.maxAttempts === 'number' ? `attempt ${fields.attempt} of ${fields.maxAttempts}` : `attempt ${fields.attempt}`);
  const head = parts.length > 0 ? ` (${parts.join(', ')})` : '';
  const err = fields.err instanceof Error ? fields.err.message : fields.err === undefined ? '' : String(fields.err);
  return `${head}${err ? `: ${err.split('\n', 1)[0]}` : ''}`;
}

/** One stderr line per `warn` or `error` report; `info` reports are left out. */
export function createConsoleLogger(write: (line: string) => void = (line) => console.error(line)): ReceiverLogger {
  const line = (obj: object, msg?: string) => write(`${PREFIX} ${msg ?? 'report'}${details(obj)}`);
  return { warn: line, error: line };
}

/** The logger a receiver reports to: the given one, the console one when none was given, none for `false`. */
export function receiverLogger(logger: ReceiverLogger | false | undefined): ReceiverLogger | undefined {
  if (logger === false) return undefined;
  return logger ?? createConsoleLogger();
}
