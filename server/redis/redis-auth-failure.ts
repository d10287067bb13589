/**
 * Telling a refused login from an outage: Redis's error reply starts with its code (`WRONGPASS`,
 * `NOAUTH`, `NOPERM`); retrying cannot fix those, so they are reported at once, not after a timeout.
 */
import { ReplyError } from 'ioredis';

/** The error codes of a refused login or command permission. */
export type RedisAuthCode = 'WRONGPASS' | 'NOAUTH' | 'NOPERM';

const AUTH_CODES: readonly string[] = ['WRONGPASS', 'NOAUTH', 'NOPERM'] satisfies RedisAuthCode[];

/**
 * The error code when `error` is Redis refusing the credentials; undefined for anything else.
 * @example redisAuthCode(new ReplyError('WRONGPASS invalid username-password pair')) // 'WRONGPASS'
 */
export function redisAuthCode(error: unknown): RedisAuthCode | undefined {
  if (!(error instanceof ReplyError)) return undefined;
  const code = String((error as Error).message).split(' ', 1)[0] ?? '';
  return AUTH_CODES.includes(code) ? (code as RedisAuthCode) : undefined;
}

/** Thrown when Redis refuses the configured credentials; the message says what to fix. */
export class RedisAuthError extends Error {
  override name = 'RedisAuthError';
  constructor(
    message: string,
    /** The Redis error code. */
    readonly code: RedisAuthCode,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The error for an authentication failure at `where`, naming the `setting` holding the credentials. */
export function authFailure(error: Error, code: RedisAuthCode, where: string, setting: string): RedisAuthError {
  const fix =
    code === 'NOAUTH'
      ? `it requires a password: put it in ${setting} (redis://:PASSWORD@host:6379, or redis://USER:PASSWORD@host:6379 for an ACL user).`
      : code === 'WRONGPASS'
        ? `it refused the user or password of ${setting}: fix them there.`
        : `the user of ${setting} may not run the commands the server needs: grant them, or use another user.`;
  return new RedisAuthError(`Redis ${where} refused to authenticate (${code}): ${fix}`, code, { cause: error });
}
