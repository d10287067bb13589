/** The resume operation's contract, enforced by express-openapi-validator's public middleware. */
import { once } from 'node:events';
import { createServer, get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';

/** Options of `createContractValidator`. */
export interface ContractValidatorOptions {
  /** The OpenAPI document (the validator deep-clones it). */
  document: object;
  /** Check the document against the OpenAPI 3.1 schema when it loads (compiles that schema: slow). */
  validateApiSpec: boolean;
  /** Check every `res.json` answer against the spec; a mismatch becomes a 500 (x-decisions: response-validation). */
  validateResponses: boolean;
  /** Whether the request's bearer token is an API key (the `bearerAuth` scheme's handler). */
  isAuthenticated: (req: Request) => boolean;
}

/**
 * Builds the validator's middleware; mount it after the body parser. A document the validator cannot
 * use fails only the requests through it: run `checkContractValidator` at start-up.
 * @example
 * const validator = createContractValidator({ document, validateApiSpec: false, validateResponses: true, isAuthenticated });
 * app.post(RESUME_ROUTE, express.json(), ...validator, handler);
 */
export function createContractValidator(options: ContractValidatorOptions): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: options.document as never,
    validateApiSpec: options.validateApiSpec,
    // Unknown query parameters are ignored, like unknown body members (x-decisions: request-body).
    validateRequests: { allowUnknownQueryParameters: true },
    validateResponses: options.validateResponses,
    // Without a handler the validator accepts any bearer token.
    validateSecurity: { handlers: { bearerAuth: (req) => options.isAuthenticated(req) } },
    // The body check refuses any body that is not JSON (415) before the validator runs.
    fileUploader: false,
  });
}

/**
 * Resolves once the validator has loaded the document; rejects with its own error when it cannot.
 * The validator loads lazily (on the first request), so this sends one loopback request to a
 * throwaway app holding the middleware alone: any error but its 404 is the load's failure.
 * @example await checkContractValidator({ document, validateApiSpec: true, validateResponses: true, isAuthenticated: () => false });
 */
export async function checkContractValidator(options: ContractValidatorOptions): Promise<void> {
  let failure: unknown;
  const probe = express();
  const end: RequestHandler = (_req, res) => void res.end();
  probe.use(createContractValidator(options), end);
  probe.use(((err, _req, res, _next) => {
    if ((err as { status?: unknown }).status !== 404) failure = err;
    res.end();
  }) as ErrorRequestHandler);
  const server = createServer(probe).listen(0, '127.0.0.1');
  try {
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    // node:http, not fetch: a fetch mock installed by the host (MSW, nock) cannot intercept it.
    const [answer] = (await once(get({ host: '127.0.0.1', port, path: '/', agent: false }), 'response')) as [IncomingMessage];
    answer.resume();
    await once(answer, 'end');
  } finally {
    server.close();
    // The client's kept-alive connection would hold the process for the keep-alive timeout.
    server.closeAllConnections();
  }
  if (failure !== undefined) throw failure;
}
