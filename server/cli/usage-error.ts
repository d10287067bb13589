/** Thrown by an operator command for a usage problem (missing setting, bad option); printed and mapped to exit 2. */
export class ServerUsageError extends Error {
  override name = 'ServerUsageError';
}
