/**
 * One bearer check per request, shared by the request guard (which runs it before anything is
 * read) and express-openapi-validator's security handler for `bearerAuth` (which asks again).
 */
import type { Request } from 'express';
import { parseBearer, type ApiKeyCheck } from './bearer-auth.js';

/** The id of the API key that `req`'s bearer token is, or undefined. */
export type Authenticate = (req: Request) => string | undefined;

/**
 * Wraps `checkKey` so that each request's Authorization header is checked once and the verdict
 * kept with the request (in a WeakMap: nothing outlives it).
 *
 * @example
 * const authenticate = createAuthentication(createApiKeyCheck(['key1']));
 * const handlers = { bearerAuth: (req: Request) => authenticate(req) !== undefined };
 */
export function createAuthentication(checkKey: ApiKeyCheck): Authenticate {
  const verdicts = new WeakMap<Request, string | null>();
  return (req) => {
    let keyId = verdicts.get(req);
    if (keyId === undefined) {
      const credentials = parseBearer(req.headers.authorization);
      keyId = (credentials.kind === 'token' ? checkKey(credentials.token) : undefined) ?? null;
      verdicts.set(req, keyId);
    }
    return keyId ?? undefined;
  };
}
