/** The logger the receiver writes to: its own file, so the handlers and the options both import it without importing each other. */

/** A pino-compatible subset; every method optional in use. */
export interface ReceiverLogger {
  info?(obj: object, msg?: string): void;
  warn?(obj: object, msg?: string): void;
  error?(obj: object, msg?: string): void;
}
