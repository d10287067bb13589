/**
 * `createApp(deps)`: the express app of the reference server — validator, bearer
 * check, routes and error rendering. It neither listens nor reads the environment.
 */
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { RESUME_ROUTE } from '@session-resume-api/runtime/resume-path';
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler } from 'express';
import { pino, type Logger } from 'pino';
import { contract as shippedContract, loadContract, specPath as defaultSpecPath, type Contract } from '@session-resume-api/runtime/contract';
import { createAuthentication, type Authenticate } from './auth/authenticate.js';
import { createApiKeyCheck, parseBearer, wwwAuthenticate } from './auth/bearer-auth.js';
import { createDocsRouter } from './docs/create-docs-router.js';
import { errorBody, toErrorAnswer } from './errors/error-answer.js';
import { createApiPathMatcher } from './http/api-paths.js';
import { createContractValidator, type ContractValidatorOptions } from './http/contract-validator.js';
import { createCors } from './http/cors.js';
import { isContinuePending } from './http/expect-continue.js';
import { parseJsonBody } from './http/json-body.js';
import { createRequestLog, requestLogger } from './http/request-log.js';
import { checkRateLimitOptions, createRateLimit, type RateLimitOptions } from './http/rate-limit.js';
import { createBodyCheck, createRequestGuard, methodNotAllowed, notFound } from './http/request-guard.js';
import { createResumeHandler, type ResumeWorld } from './http/resume-handler.js';
import type { Sandbox } from './sandbox/create-sandbox.js';
import { SessionsLostError } from './errors/store-errors.js';
import type { SessionStore } from './sessions/session-store.js';
import { serverTracing } from './core/server-tracing.js';
import type { OpenTelemetryApi } from '@session-resume-api/runtime/tracing';
import type { WebhookDelivery } from './webhooks/webhook-delivery.js';

/** What the app is built from. */
export interface AppDeps {
  /** Where sessions live (memory or Redis). */
  store: SessionStore;
  /** Accepted bearer tokens (at least one, non-empty). */
  apiKeys: string[];
  /**
   * Structured logger.
   * @defaultValue silent
   */
  logger?: Logger;
  /**
   * Per-API-key rate limit.
   * @defaultValue off
   */
  rateLimit?: RateLimitOptions;
  /**
   * Receives a `session.resumed` event after each successful resume.
   * @defaultValue none: no events are sent
   */
  webhookDelivery?: WebhookDelivery;
  /**
   * Origins allowed by CORS; `*` allows any.
   * @defaultValue none: CORS off
   */
  corsOrigins?: string[];
  /**
   * OpenAPI document to serve and enforce.
   * @defaultValue `spec/openapi.yaml`
   */
  specPath?: string;
  /**
   * HTML reference served at /docs, built by `npm run docs`.
   * @defaultValue `dist/docs/index.html`
   */
  docsHtmlPath?: string;
  /**
   * Check every JSON answer against the spec, answering 500 on a mismatch. Costs resume-path CPU
   * (BENCHMARKS.md); `server/main.ts` turns it off in production (`VALIDATE_RESPONSES`, x-decisions: response-validation).
   * @defaultValue `true`
   */
  validateResponses?: boolean;
  /**
   * `@opentelemetry/api` (optional peer dependency): a span per resume, its context carried to every
   * delivery attempt. The request's `traceparent` goes with the event either way.
   * @defaultValue none: no spans
   */
  opentelemetry?: OpenTelemetryApi;
  /**
   * Sandbox mode (server/sandbox): `sandbox_` keys with their own worlds replace `apiKeys` and `store`; /_sandbox, Prefer forcing.
   * @defaultValue off
   */
  sandbox?: Sandbox;
}

/**
 * Builds the app. A spec at `specPath` that does not parse rejects here (`ContractError`); one that
 * express-openapi-validator cannot use fails only on the first request (500), so run
 * `checkAppContract` with the same `specPath` and `validateResponses` before listening (`npm start` does).
 *
 * Order (x-decisions: request-checks): request log, CORS; sandbox control API, /healthz, /docs;
 * request guard (framing, paths, API key); rate limit; POST on the resume route (body check,
 * validator, handler), other methods 405, other paths 404.
 * @example
 * const app = await createApp({ store: createMemorySessionStore(), apiKeys: ['key1'] });
 * app.listen(3000);
 */
export async function createApp(deps: AppDeps): Promise<Express> {
  checkDeps(deps);
  const logger = deps.logger ?? pino({ enabled: false });
  // Built in sandbox mode too: the key check is where apiKeys is checked.
  const apiKeyCheck = createApiKeyCheck(deps.apiKeys);
  const authenticate = createAuthentication(deps.sandbox?.checkKey ?? apiKeyCheck);
  // The shipped spec is already loaded and compiled (runtime/contract.ts, at import): reuse it.
  const contract = deps.specPath === undefined ? shippedContract : loadContract(deps.specPath);
  const resume = createResumeRoute(deps, contract, logger, authenticate);
  const isApiPath = createApiPathMatcher(Object.keys(contract.document.paths));

  const app = express();
  app.disable('x-powered-by');
  // Answers are small JSON to POSTs: an ETag (a hash of every body) serves no cache.
  app.set('etag', false);
  // The one API path, spelt exactly: case-sensitive, no trailing slash (x-decisions: routing).
  app.set('case sensitive routing', true);
  app.set('strict routing', true);

  app.use(createRequestLog(logger));
  if (deps.corsOrigins?.length) app.use(createCors(deps.corsOrigins, deps.sandbox?.cors));
  mountOperationalPaths(app, deps);
  app.use(createRequestGuard({ authenticate, isApiPath }));
  if (deps.rateLimit) app.use(createRateLimit(deps.rateLimit, keyIdOf(authenticate), logger));
  app.post(RESUME_ROUTE, resume);
  app.all(RESUME_ROUTE, methodNotAllowed);
  app.use(notFound);
  app.use(renderError(logger));
  return app;
}

/** The handlers of POST on the resume route: declared body and its parser, contract, (sandbox forcing), the handler. */
function createResumeRoute(deps: AppDeps, contract: Contract, logger: Logger, authenticate: Authenticate): RequestHandler[] {
  const validator = createContractValidator(contractValidatorOptions(deps, contract.document, (req) => authenticate(req) !== undefined));
  const { sandbox } = deps;
  const handler = createResumeHandler({
    store: deps.store,
    webhookDelivery: deps.webhookDelivery,
    logger,
    keyIdOf: keyIdOf(authenticate),
    tracing: serverTracing(deps.opentelemetry),
    // Sandbox mode: each key's own world and event feed replace the shared store and delivery.
    ...(sandbox ? { worldOf: (req: Request) => sandboxWorld(sandbox, authenticate(req)) } : {}),
  });
  // Sandbox forcing answers through res.json after the validator, so its answers are checked too.
  return [createBodyCheck({ parser: parseJsonBody() }), ...validator, ...(sandbox ? [sandbox.preferForcing] : []), handler];
}

/** The validator's options for the app built from `deps`: one home for the app and its start-up check. */
export function contractValidatorOptions(
  deps: Pick<AppDeps, 'specPath' | 'validateResponses'>,
  document: object,
  isAuthenticated: ContractValidatorOptions['isAuthenticated'],
): ContractValidatorOptions {
  return {
    document,
    // Checking a document against the OpenAPI 3.1 schema compiles that schema; the shipped
    // spec is linted in CI, so only a spec given by path is checked.
    validateApiSpec: deps.specPath !== undefined,
    validateResponses: deps.validateResponses ?? true,
    isAuthenticated,
  };
}

/** The sandbox's control API and the operational endpoints, outside the key check. */
function mountOperationalPaths(app: Express, deps: AppDeps): void {
  // The sandbox's control API checks its own key and contract (spec/sandbox.yaml).
  if (deps.sandbox) app.use(deps.sandbox.router);
  app.get('/healthz', async (_req, res) => {
    try {
      await deps.store.ping();
      res.status(200).json({ status: 'ok' });
    } catch (err) {
      // A store that answers but lost its sessions says so (server/sessions/session-seed-admin.ts).
      res.status(503).json(errorBody('service_unavailable', err instanceof SessionsLostError ? err.message : 'The session store does not answer.'));
    }
  });
  const specPath = deps.specPath ?? defaultSpecPath;
  app.get(['/', '/docs', '/openapi.yaml'], createDocsRouter({ specPath, ...(deps.docsHtmlPath ? { docsHtmlPath: deps.docsHtmlPath } : {}) }));
}

const UNAUTHORIZED_MESSAGES = {
  missing: 'Missing bearer token: send Authorization: Bearer <API_KEY>.',
  malformed: 'The Authorization header is not a Bearer token: send Authorization: Bearer <API_KEY>.',
  token: 'The bearer token is not a valid API key.',
} as const;

/** The last middleware: every error becomes the spec's Error body; no stack ever leaves. */
const renderError =
  (logger: Logger): ErrorRequestHandler =>
  (err, req, res, _next) => {
    const answer = toErrorAnswer(err);
    if (answer.status === 401) {
      // RFC 6750 §3: every 401 carries the Bearer challenge.
      const credentials = parseBearer(req.headers.authorization);
      answer.headers['WWW-Authenticate'] = wwwAuthenticate(credentials);
      answer.body.message = UNAUTHORIZED_MESSAGES[credentials.kind];
    }
    // A body announced with Expect: 100-continue is never invited once refused: close after the answer.
    if (isContinuePending(req)) res.setHeader('Connection', 'close');
    if (answer.defect) requestLogger(logger, req, res).error({ err }, 'defect: answered 500');
    else if (answer.status === 503) requestLogger(logger, req, res).warn({ err }, 'session store unavailable: answered 503');
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    // send, not json: the validator's response check wraps json and must not re-enter here.
    res.status(answer.status).set(answer.headers).type('application/json').send(JSON.stringify(answer.body));
  };

/** The id to count and scope a request by: its API key's id (the guard has let only those through). */
const keyIdOf = (authenticate: Authenticate) => (req: Request) => authenticate(req) ?? 'anonymous';

function sandboxWorld(sandbox: Sandbox, worldId: string | undefined): ResumeWorld | undefined {
  if (worldId === undefined) return undefined;
  return { store: sandbox.world(worldId), emit: (event) => sandbox.emit(worldId, event) };
}

function checkDeps(deps: AppDeps): void {
  if (!deps || typeof deps.store?.resume !== 'function') throw new OptionsError('createApp: deps.store must be a SessionStore.', { option: 'store' });
  if (deps.corsOrigins && (!Array.isArray(deps.corsOrigins) || deps.corsOrigins.some((origin) => typeof origin !== 'string' || !origin))) {
    throw new OptionsError('createApp: deps.corsOrigins must be a list of origins such as https://app.example.org.', { option: 'corsOrigins' });
  }
  if (deps.webhookDelivery && typeof deps.webhookDelivery.enqueue !== 'function') {
    throw new OptionsError('createApp: deps.webhookDelivery must implement WebhookDelivery (enqueue, close).', { option: 'webhookDelivery' });
  }
  if (deps.rateLimit) {
    try {
      checkRateLimitOptions(deps.rateLimit);
    } catch (err) {
      throw new OptionsError(`createApp: ${(err as Error).message}`, { option: 'rateLimit', cause: err });
    }
  }
}
