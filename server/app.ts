/**
 * `createApp(deps)`: the express app of the reference server — validator, bearer
 * check, routes and error rendering. It neither listens nor reads the environment.
 */
import { OptionsError } from '../spec/options-error.js';
import { resumeUrl } from '../spec/resume-path.js';
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler } from 'express';
import { pino, type Logger } from 'pino';
import { ContractError, contract as shippedContract, loadContract, specPath as defaultSpecPath } from '../spec/contract.js';
import { createApiKeyCheck, parseBearer, wwwAuthenticate } from './auth/bearer-auth.js';
import { createDocsRouter } from './docs/create-docs-router.js';
import { errorBody, toErrorAnswer } from './errors/error-answer.js';
import { composeMiddleware } from './http/compose-middleware.js';
import { createContractCheck } from './http/contract-check.js';
import { createCors } from './http/cors.js';
import { parseJsonBody, raiseBodyError } from './http/json-body.js';
import { createRequestLog, requestLogger } from './http/request-log.js';
import { checkRateLimitOptions, createRateLimit, type RateLimitOptions } from './http/rate-limit.js';
import { createRequestGuard, isResumePath, notFound, resumeSessionId } from './http/request-guard.js';
import { trimValidatorStartUp } from './http/validator-start-up.js';
import { createResumeHandler, type ResumeWorld } from './sessions/resume-handler.js';
import type { Sandbox } from './sandbox/create-sandbox.js';
import type { SessionStore } from './sessions/session-store.js';
import type { WebhookSender } from './webhooks/webhook-sender.js';

/** What the app is built from. */
export interface AppDeps {
  /** Where sessions live (memory or Redis). */
  store: SessionStore;
  /** Accepted bearer tokens (at least one, non-empty). */
  apiKeys: string[];
  /** Structured logger (default: silent). */
  logger?: Logger;
  /** Per-API-key rate limit (default: off). */
  rateLimit?: RateLimitOptions;
  /** Receives a `session.resumed` event after each successful resume (default: none). */
  webhookSender?: WebhookSender;
  /** Origins allowed by CORS (default: none, CORS off); `*` allows any. */
  corsOrigins?: string[];
  /** OpenAPI document to serve and enforce (default: spec/openapi.yaml). */
  specPath?: string;
  /** HTML reference served at /docs (default: dist/docs/index.html, built by `npm run docs`). */
  docsHtmlPath?: string;
  /**
   * Check every JSON answer against the spec, answering 500 on a mismatch (default: true).
   * Costs 5–15 % of the resume path's CPU (BENCHMARKS.md); `server/main.ts` turns it off in production
   * (`VALIDATE_RESPONSES`, x-decisions: response-validation).
   */
  validateResponses?: boolean;
  /** Sandbox mode (server/sandbox): `sandbox_` keys with their own worlds replace `apiKeys` and `store`; /_sandbox, Prefer forcing (default: off). */
  sandbox?: Sandbox;
}

// Three start-up costs of the validator that buy nothing here (server/http/validator-start-up.ts).
trimValidatorStartUp();

/** Thrown by `createApp` for options that cannot work; the message names the option. */
export class AppOptionsError extends OptionsError {
  override name = 'AppOptionsError';
}


/**
 * Builds the app. Async because it loads and checks the spec, then initialises the
 * validator (which otherwise loads lazily on the first request), so a broken spec fails
 * here with a `ContractError` naming the file rather than as a 500 later.
 *
 * @example
 * const app = await createApp({ store: createMemorySessionStore(), apiKeys: ['key1'] });
 * app.listen(3000);
 */
export async function createApp(deps: AppDeps): Promise<Express> {
  checkDeps(deps);
  const logger = deps.logger ?? pino({ enabled: false });
  const specFile = deps.specPath ?? defaultSpecPath;
  // The shipped spec is already loaded and compiled (spec/contract.ts, at import): reuse it.
  const contract = deps.specPath === undefined ? shippedContract : loadContract(specFile);
  const { sandbox } = deps;
  const checkKey = sandbox?.checkKey ?? createApiKeyCheck(deps.apiKeys);
  const keyIds = new WeakMap<Request, string>();

  const app = express();
  app.disable('x-powered-by');
  // Answers are small JSON to POSTs: an ETag (a hash of every body) serves no cache.
  app.set('etag', false);

  // Framing, key, exact path, method, declared body: in that order (x-decisions: request-checks).
  // The rate limit counts every answer after the key check (x-decisions: rate-limit-headers).
  const guard = createRequestGuard({
    checkKey,
    onKey: (req, keyId) => keyIds.set(req, keyId),
    ...(deps.rateLimit ? { afterKey: createRateLimit(deps.rateLimit, (req) => keyIds.get(req) ?? 'anonymous') } : {}),
  });
  const resumePipeline = await createResumePipeline(deps, { guard, logger, specFile, document: contract.document, keyIdOf: (req) => keyIds.get(req) });
  // The first layer of every request: the log, CORS, and the resume path straight into its
  // pipeline, past the layers of the other paths.
  app.use(
    composeMiddleware([
      createRequestLog(logger),
      ...(deps.corsOrigins?.length ? [createCors(deps.corsOrigins, sandbox?.cors)] : []),
      (req, res, next) => (isResumePath(req) ? resumePipeline(req, res, next) : next()),
    ]),
  );
  mountOtherPaths(app, deps, specFile, guard);
  app.use(notFound);
  app.use(renderError(logger));
  return app;
}

/** What the resume pipeline is built from, besides the app's deps. */
interface PipelineParts {
  guard: RequestHandler;
  logger: Logger;
  specFile: string;
  document: object;
  keyIdOf: (req: Request) => string | undefined;
}

/**
 * Everything a request on the resume path goes through, as one router layer: the router's
 * path match and async wrapping per layer were a large share of the path's CPU. The guard,
 * the body, the contract check, then the route.
 */
async function createResumePipeline(deps: AppDeps, parts: PipelineParts): Promise<RequestHandler> {
  const { sandbox } = deps;
  const contractCheck = await createContractCheck({
    // The contract's copy is frozen: the validator deep-clones what it is given before it
    // mutates anything (express-openapi-validator dist/index.js), so no copy of our own.
    document: parts.document,
    // Checking a document against the OpenAPI 3.1 schema compiles that schema (a quarter of the
    // start-up); the shipped spec is linted in CI, so only a spec given by path is checked.
    validateApiSpec: deps.specPath !== undefined,
    validateResponses: deps.validateResponses ?? true,
    samplePath: resumeUrl('', 'x'),
    method: 'POST',
    pathParam: (req) => String(req.params.session_id),
  }).catch((cause: unknown) => {
    throw new ContractError(`${parts.specFile} cannot be used by the request validator: ${(cause as Error).message}`, { cause });
  });
  const resume = createResumeHandler({
    store: deps.store,
    webhookSender: deps.webhookSender,
    logger: parts.logger,
    keyIdOf: (req) => parts.keyIdOf(req) ?? 'anonymous',
    // Sandbox mode: each key's own world and event feed replace the shared store and sender.
    ...(sandbox ? { worldOf: (req: Request) => sandboxWorld(sandbox, parts.keyIdOf(req)) } : {}),
  });
  return composeMiddleware([
    parts.guard,
    setSessionIdParam,
    parseJsonBody(),
    ...contractCheck,
    // Body failures surface only now, after the key check (x-decisions: unauthorized).
    raiseBodyError,
    ...(sandbox ? [sandbox.preferForcing] : []),
    resume,
  ]);
}

/**
 * Everything but the resume path: the sandbox's control API, the operational endpoints, and
 * the guard again, so that any other path answers 401 to a caller without a key and 404 to
 * one with a key (x-decisions: request-checks).
 */
function mountOtherPaths(app: Express, deps: AppDeps, specFile: string, guard: RequestHandler): void {
  // The sandbox's control API checks its own key and contract (spec/sandbox.yaml).
  if (deps.sandbox) app.use(deps.sandbox.router);
  // Outside /v1 and outside the contract: operational endpoints, no auth.
  app.get('/healthz', async (_req, res) => {
    try {
      await deps.store.ping();
      res.status(200).json({ status: 'ok' });
    } catch {
      res.status(503).json(errorBody('service_unavailable', 'The session store does not answer.'));
    }
  });
  // The reference: / (JSON pointing to it), /docs (HTML) and /openapi.yaml (raw spec), no auth.
  app.get(['/', '/docs', '/openapi.yaml'], createDocsRouter({ specPath: specFile, ...(deps.docsHtmlPath ? { docsHtmlPath: deps.docsHtmlPath } : {}) }));
  app.use(guard);
}

/** The session id as the route parameter the handlers read (the pipeline has no express route). */
const setSessionIdParam: RequestHandler = (req, _res, next) => {
  req.params = { session_id: resumeSessionId(req) };
  next();
};

const UNAUTHORIZED_MESSAGES = {
  missing: 'Missing bearer token: send Authorization: Bearer <API_KEY>.',
  malformed: 'The Authorization header is not a Bearer token: send Authorization: Bearer <API_KEY>.',
  token: 'The bearer token is not a valid API key.',
} as const;

/** The last middleware: every error becomes the spec's Error body; no stack ever leaves. */
const renderError = (logger: Logger): ErrorRequestHandler => (err, req, res, _next) => {
  const answer = toErrorAnswer(err);
  if (answer.status === 401) {
    // RFC 6750 §3: every 401 carries the Bearer challenge.
    const credentials = parseBearer(req.headers.authorization);
    answer.headers['WWW-Authenticate'] = wwwAuthenticate(credentials);
    answer.body.message = UNAUTHORIZED_MESSAGES[credentials.kind];
  }
  if (answer.defect) requestLogger(logger, req, res).error({ err }, 'defect: answered 500');
  else if (answer.status === 503) requestLogger(logger, req, res).warn({ err }, 'session store unavailable: answered 503');
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  // send, not json: the validator's response check wraps json and must not re-enter here.
  res.status(answer.status).set(answer.headers).type('application/json').send(JSON.stringify(answer.body));
};

/** The store and event feed of a sandbox key's world. */
function sandboxWorld(sandbox: Sandbox, worldId: string | undefined): ResumeWorld | undefined {
  if (worldId === undefined) return undefined;
  return { store: sandbox.world(worldId), emit: (event) => sandbox.emit(worldId, event) };
}

function checkDeps(deps: AppDeps): void {
  if (!deps || typeof deps.store?.resume !== 'function') throw new AppOptionsError('createApp: deps.store must be a SessionStore.');
  if (!Array.isArray(deps.apiKeys) || deps.apiKeys.length === 0 || deps.apiKeys.some((k) => typeof k !== 'string' || !k)) {
    throw new AppOptionsError('createApp: deps.apiKeys must be a non-empty list of non-empty strings.');
  }
  if (deps.corsOrigins && (!Array.isArray(deps.corsOrigins) || deps.corsOrigins.some((o) => typeof o !== 'string' || !o))) {
    throw new AppOptionsError('createApp: deps.corsOrigins must be a list of origins such as https://app.example.org.');
  }
  if (deps.webhookSender && typeof deps.webhookSender.enqueue !== 'function') {
    throw new AppOptionsError('createApp: deps.webhookSender must implement WebhookSender (enqueue, close).');
  }
  if (deps.rateLimit) {
    try {
      checkRateLimitOptions(deps.rateLimit);
    } catch (err) {
      throw new AppOptionsError(`createApp: ${(err as Error).message}`);
    }
  }
}
