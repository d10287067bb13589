/**
 * `createApp(deps)`: the express app of the reference server (issue #3) — validator, bearer
 * check, routes and error rendering. It neither listens nor reads the environment.
 */
import { OptionsError } from '../spec/options-error.js';
import { RESUME_ROUTE } from '../spec/resume-path.js';
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { pino, type Logger } from 'pino';
import { ContractError, contract as shippedContract, loadContract, specPath as defaultSpecPath } from '../spec/contract.js';
import { createApiKeyCheck, parseBearer, wwwAuthenticate } from './auth/bearer-auth.js';
import { createDocsRouter } from './docs/create-docs-router.js';
import { errorBody, toErrorAnswer } from './errors/error-answer.js';
import { HttpError } from './errors/http-error.js';
import { composeMiddleware } from './http/compose-middleware.js';
import { createCors } from './http/cors.js';
import { parseJsonBody, raiseBodyError } from './http/json-body.js';
import { createRequestLog, requestLogger } from './http/request-log.js';
import { checkRateLimitOptions, createRateLimit, type RateLimitOptions } from './http/rate-limit.js';
import { createRequestGuard, notFound } from './http/request-guard.js';
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
  const { store, webhookSender } = deps;
  const { sandbox } = deps;
  const checkKey = sandbox?.checkKey ?? createApiKeyCheck(deps.apiKeys);
  const keyIds = new WeakMap<Request, string>();

  const app = express();
  app.disable('x-powered-by');
  // Answers are small JSON to POSTs: an ETag (a hash of every body) serves no cache.
  app.set('etag', false);
  app.use(createRequestLog(logger));
  if (deps.corsOrigins?.length) app.use(createCors(deps.corsOrigins, sandbox?.cors));
  // The sandbox's control API checks its own key and contract (spec/sandbox.yaml).
  if (sandbox) app.use(sandbox.router);

  // Outside /v1 and outside the contract: operational endpoints, no auth.
  app.get('/healthz', async (_req, res) => {
    try {
      await store.ping();
      res.status(200).json({ status: 'ok' });
    } catch {
      res.status(503).json(errorBody('service_unavailable', 'The session store does not answer.'));
    }
  });
  // The reference for review: /docs (HTML) and /openapi.yaml (raw spec), no auth (issue #6).
  // Mounted on its two paths only, so API requests skip the router's own stack.
  app.get(['/docs', '/openapi.yaml'], createDocsRouter({ specPath: specFile, ...(deps.docsHtmlPath ? { docsHtmlPath: deps.docsHtmlPath } : {}) }));

  // Framing, key, exact path, method, declared body: in that order (x-decisions: request-checks).
  // The rate limit counts every answer after the key check (x-decisions: rate-limit-headers).
  app.use(
    createRequestGuard({
      checkKey,
      onKey: (req, keyId) => keyIds.set(req, keyId),
      ...(deps.rateLimit ? { afterKey: createRateLimit(deps.rateLimit, (req) => keyIds.get(req) ?? 'anonymous') } : {}),
    }),
  );

  const validator = OpenApiValidator.middleware({
    // The validator mutates the document it is given; the contract's copy is frozen.
    apiSpec: structuredClone(contract.document) as never,
    // Checking a document against the OpenAPI 3.1 schema compiles that schema (a quarter of the
    // start-up); the shipped spec is linted in CI, so only a spec given by path is checked.
    validateApiSpec: deps.specPath !== undefined,
    // Unknown query parameters are ignored, like unknown body members (x-decisions: request-body).
    validateRequests: { allowUnknownQueryParameters: true },
    validateResponses: deps.validateResponses ?? true,
    validateSecurity: {
      handlers: {
        // The real check: without it the validator accepts any token.
        bearerAuth: (req: Request) => {
          const credentials = parseBearer(req.headers.authorization);
          const keyId = credentials.kind === 'token' ? checkKey(credentials.token) : undefined;
          if (!keyId) throw new HttpError(401, 'unauthorized', 'Unauthorized.');
          keyIds.set(req, keyId);
          return true;
        },
      },
    },
  });
  await initValidator(validator, app).catch((cause: unknown) => {
    throw new ContractError(`${specFile} cannot be used by the request validator: ${(cause as Error).message}`, { cause });
  });
  // One router layer for the whole contract check. The validator's first middleware only
  // installs its path parameters, which initValidator has done: it is left out.
  app.use(
    composeMiddleware([
      parseJsonBody(),
      ...validator.slice(1),
      // Body failures surface only now, after the bearer check (x-decisions: unauthorized).
      raiseBodyError,
    ]),
  );

  if (sandbox) app.post(RESUME_ROUTE, sandbox.preferForcing);
  app.post(
    RESUME_ROUTE,
    createResumeHandler({
      store,
      webhookSender,
      logger,
      keyIdOf: (req) => keyIds.get(req) ?? 'anonymous',
      // Sandbox mode: each key's own world and event feed replace the shared store and sender.
      ...(sandbox ? { worldOf: (req: Request) => sandboxWorld(sandbox, keyIds.get(req)) } : {}),
    }),
  );

  app.use(notFound);
  app.use(renderError(logger));
  return app;
}


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

/**
 * Runs the validator's first middleware once with the app, which awaits its spec loading and
 * installs its path parameters; a spec the validator cannot use rejects here.
 */
async function initValidator(validator: RequestHandler[], app: Express): Promise<void> {
  const first = validator[0];
  if (!first) throw new Error('express-openapi-validator returned no middleware');
  await new Promise<void>((resolve, reject) => {
    const req = { app } as unknown as Request;
    void first(req, {} as never, (err?: unknown) => (err ? reject(err) : resolve()));
  });
}

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
