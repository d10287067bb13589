/** Thrown by a command of either package's command line for a usage problem (missing setting, bad option); printed and mapped to exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
