/**
 * The resume operation's contract, enforced by express-openapi-validator's public middleware
 * (`OpenApiValidator.middleware`, as its README shows): path parameters, headers, query and
 * body against the spec, the bearer scheme through a security handler that does the real key
 * check, and, when on, every `res.json` answer against the operation's responses.
 */
import { once } from 'node:events';
import { createServer, get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';

/** Options of `createContractValidator`. */
export interface ContractValidatorOptions {
  /** The OpenAPI document (the validator deep-clones it before changing anything). */
  document: object;
  /** Check the document against the OpenAPI 3.1 schema when it loads (compiles that schema: slow). */
  validateApiSpec: boolean;
  /** Check every `res.json` answer against the spec; a mismatch becomes a 500 (x-decisions: response-validation). */
  validateResponses: boolean;
  /** Whether the request's bearer token is an API key (the `bearerAuth` scheme's handler). */
  isAuthenticated: (req: Request) => boolean;
}

/**
 * Builds the validator's middleware. The validator reports a document it cannot use only to
 * the requests that pass through it (each is answered with the load's error); an entry point
 * that wants that failure at start-up runs `checkContractValidator` first. Mount the middleware
 * after the body parser.
 *
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
 * Resolves once the validator, built with these options, has loaded the document; rejects with
 * the validator's own error when it cannot use it. The validator loads its document for the
 * first request through its middleware (its README: "lazily"), so this sends one request over
 * loopback to a throwaway app holding that middleware alone: an error other than the
 * validator's 404 for a path outside the document is the load's failure. For entry points, at
 * start-up (it listens on a loopback port for that one request).
 *
 * @example
 * await checkContractValidator({ document, validateApiSpec: true, validateResponses: true, isAuthenticated: () => false });
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
