/**
 * One bearer check per request, shared by the request guard (which runs it before anything is
 * read) and express-openapi-validator's security handler for `bearerAuth` (which asks again).
 */
import type { Request } from 'express';
import { parseBearer, type ApiKeyCheck } from './bearer-auth.js';

/** The id of the API key that `req`'s bearer token is, or undefined. */
export type Authenticate = (req: Request) => string | undefined;

/**
 * Wraps `checkKey` so each request's Authorization header is checked once, the verdict kept on the request.
 * @example
 * const authenticate = createAuthentication(createApiKeyCheck(['key1']));
 * const handlers = { bearerAuth: (req: Request) => authenticate(req) !== undefined };
 */
export function createAuthentication(checkKey: ApiKeyCheck): Authenticate {
  // Kept on the request under a symbol of this check's own: a WeakMap keyed by every request
  // costs the garbage collector an ephemeron per request.
  const verdict = Symbol('api key id');
  return (req) => {
    const held = req as Request & { [verdict]?: string | null };
    let keyId = held[verdict];
    if (keyId === undefined) {
      const credentials = parseBearer(req.headers.authorization);
      keyId = (credentials.kind === 'token' ? checkKey(credentials.token) : undefined) ?? null;
      held[verdict] = keyId;
    }
    return keyId ?? undefined;
  };
}
