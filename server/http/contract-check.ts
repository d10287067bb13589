/**
 * The request (and optionally response) validation of the resume operation against the spec,
 * with express-openapi-validator 5.6.2's own validators but without its per-request overhead
 * (bench/findings.md): its middlewares wait on a promise at every request (one microtask hop
 * each), its metadata step compiles every spec path to a regexp at every request, and its
 * security step runs the bearer scheme through promise machinery (about 10 µs) for a key the
 * request guard has already checked (x-decisions: request-checks). Here the validators are
 * built once, after the spec has loaded, and run synchronously; the route's metadata is
 * looked up once and filled in with the request's path parameter.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';

/** Options of `createContractCheck`. */
export interface ContractCheckOptions {
  /** The OpenAPI document (the validator deep-clones it before changing anything). */
  document: object;
  /** Check the document against the OpenAPI schema first (slow: compiles the meta-schema). */
  validateApiSpec: boolean;
  /** Check every JSON answer against the spec (the validator wraps `res.json`). */
  validateResponses: boolean;
  /** A path of the one operation, with any path parameter value (e.g. `/v1/sessions/x/resume`). */
  samplePath: string;
  /** The operation's method (e.g. `POST`). */
  method: string;
  /** The request's path parameter, decoded (the caller has matched the path and method exactly). */
  pathParam: (req: Request) => string;
}

/** What express-openapi-validator 5.6.2's metadata step puts on `req.openapi`. */
interface RouteMetadata {
  expressRoute: string;
  openApiRoute: string;
  pathParams: Record<string, string>;
  schema: object;
  serial: number;
  /** Only when responses are checked. */
  _responseSchema?: object;
}

/** The validator's loaded spec, as its internal middleware factories take it. */
interface LoadedSpec {
  context: { apiDoc: object; serial: number };
  responseApiDoc: object | null;
}

/** The private factories of express-openapi-validator 5.6.2's `OpenApiValidator` used here. */
interface ValidatorInternals {
  metadataMiddleware(context: LoadedSpec['context'], responseApiDoc: object | null): RequestHandler;
  requestValidationMiddleware(apiDoc: object): RequestHandler;
  responseValidationMiddleware(apiDoc: object | null, serial: number): RequestHandler;
}

/**
 * Loads the spec into express-openapi-validator and returns its steps, ready to run without
 * waiting: the route's metadata, the request validator, then the response validator when on.
 * Rejects when the validator cannot use the document.
 *
 * @example
 * const steps = await createContractCheck({ document, validateApiSpec: false, validateResponses: true,
 *   samplePath: '/v1/sessions/x/resume', method: 'POST', pathParam: (req) => String(req.params.session_id) });
 */
export async function createContractCheck(options: ContractCheckOptions): Promise<RequestHandler[]> {
  const chain = OpenApiValidator.middleware({
    apiSpec: options.document as never,
    validateApiSpec: options.validateApiSpec,
    // Unknown query parameters are ignored, like unknown body members (x-decisions: request-body).
    validateRequests: { allowUnknownQueryParameters: true },
    validateResponses: options.validateResponses,
    // The request guard checks the key before anything else (x-decisions: request-checks).
    validateSecurity: false,
    // The request guard refuses any body that is not JSON (415).
    fileUploader: false,
  });
  const internals = validatorInternals();
  const loaded = captureLoadedSpec(internals);
  const [pathParams, metadataStep] = chain;
  if (!pathParams || !metadataStep) throw new Error('express-openapi-validator returned too few middlewares');
  // Its first middleware awaits the spec's loading and rethrows a load failure.
  await runOnce(pathParams, { app: { param: () => undefined } });
  // Its metadata step builds (and hands us) the loaded spec, and the route's metadata.
  const sample = { method: options.method, path: options.samplePath, url: options.samplePath, originalUrl: options.samplePath, baseUrl: '', app: { enabled: () => false } };
  await runOnce(metadataStep, sample).catch(() => undefined);
  const spec = await loaded;
  const template = (sample as { openapi?: RouteMetadata }).openapi;
  const steps = [
    routeMetadata(template, options.pathParam) ?? internals.metadataMiddleware(spec.context, spec.responseApiDoc),
    internals.requestValidationMiddleware(spec.context.apiDoc),
  ];
  if (options.validateResponses) steps.push(internals.responseValidationMiddleware(spec.responseApiDoc, spec.context.serial));
  return steps;
}

/**
 * The step that sets `req.openapi` and `req.params` from the route's metadata, looked up once
 * (in place of the validator's lookup, which compiles every spec path at every request).
 * Undefined when the document has no operation at the sample path with exactly one path
 * parameter (a spec given by path): the validator's own lookup runs then.
 */
function routeMetadata(template: RouteMetadata | undefined, pathParam: (req: Request) => string): RequestHandler | undefined {
  const names = template ? Object.keys(template.pathParams) : [];
  const [name] = names;
  if (!template || names.length !== 1 || name === undefined) return undefined;
  const { expressRoute, openApiRoute, schema, serial, _responseSchema } = template;
  return (req, _res, next) => {
    const pathParams = { [name]: pathParam(req) };
    // One literal of a fixed shape: a spread of the template costs more per request.
    const openapi: RouteMetadata = { expressRoute, openApiRoute, pathParams, schema, serial, _responseSchema };
    (req as Request & { openapi: RouteMetadata }).openapi = openapi;
    req.params = pathParams;
    next();
  };
}

/** The `OpenApiValidator` instance that `middleware()` just built (its `_oav`). */
function validatorInternals(): ValidatorInternals {
  const oav = (OpenApiValidator.middleware as unknown as { _oav?: Partial<ValidatorInternals> })._oav;
  const names = ['metadataMiddleware', 'requestValidationMiddleware', 'responseValidationMiddleware'] as const;
  if (!oav || names.some((n) => typeof oav[n] !== 'function')) {
    throw new Error('express-openapi-validator no longer exposes its middleware factories: server/http/contract-check.ts needs updating');
  }
  return oav as ValidatorInternals;
}

/** Resolves with the loaded spec when the validator builds its metadata step. */
function captureLoadedSpec(internals: ValidatorInternals): Promise<LoadedSpec> {
  return new Promise((resolve) => {
    const original = internals.metadataMiddleware.bind(internals);
    internals.metadataMiddleware = (context, responseApiDoc) => {
      resolve({ context, responseApiDoc });
      return original(context, responseApiDoc);
    };
  });
}

/** Runs one middleware on a stand-in request; resolves when it calls `next()`, rejects on an error. */
function runOnce(handler: RequestHandler, req: object): Promise<void> {
  return new Promise((resolve, reject) => {
    const next: NextFunction = (err?: unknown) => (err ? reject(err) : resolve());
    void handler(req as Request, {} as Response, next);
  });
}
