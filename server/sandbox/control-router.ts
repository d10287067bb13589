/** The sandbox control API under `/_sandbox` (spec/sandbox.yaml); requests and answers checked with Ajv against it. */
import type { Logger } from 'pino';
import express, { type ErrorRequestHandler, type Request, type Response, type Router } from 'express';
import { loadContract, type Contract } from '@session-resume-api/runtime/contract';
import type { SchemaName } from '@session-resume-api/runtime/types';
import { readDeliveryProfile, type DeliveryProfile } from '@session-resume-api/runtime/delivery/delivery-rules';
import { parseBearer, wwwAuthenticate } from '../auth/bearer-auth.js';
import { toErrorAnswer } from '../errors/error-answer.js';
import { HttpError } from '../errors/http-error.js';
import { BODY_LIMIT } from '../http/json-body.js';
import { MAX_PAGE_SIZE, type SandboxEvent, type SandboxWorld, type SandboxWorlds } from './sandbox-worlds.js';

import { sandboxSpecPath } from '@session-resume-api/runtime/contract';

export { sandboxSpecPath };

/** Seconds between SSE keep-alive comments, so proxies and browsers keep the stream open. */
const SSE_HEARTBEAT_MS = 15_000;

const UNAUTHORIZED = 'The bearer token is not a sandbox key: send Authorization: Bearer sandbox_<anything>.';

/** A live SSE stream, ended by `close()` at shutdown. */
type Stream = { end(): void };

/** Options of `createControlRouter`. */
export interface ControlRouterOptions {
  worlds: SandboxWorlds;
  /**
   * The loaded spec/sandbox.yaml.
   * @defaultValue loaded from `sandboxSpecPath`
   */
  contract?: Contract;
  /**
   * Where a defect (an answer that breaks the document) is reported.
   * @defaultValue nowhere
   */
  logger?: Pick<Logger, 'error'>;
}

/** The router plus a way to end every live stream (at shutdown). */
export interface ControlRouter {
  router: Router;
  closeStreams(): void;
}

/**
 * Builds the router; mount it before the main document's validator (which knows no
 * `/_sandbox` path). @example app.use(createControlRouter({ worlds }).router)
 */
export function createControlRouter(options: ControlRouterOptions): ControlRouter {
  const contract = options.contract ?? loadContract(sandboxSpecPath, { lazy: true });
  const streams = new Set<Stream>();
  // Mounted at /_sandbox: any other path costs one prefix match, not a walk through every operation.
  const api = express.Router();
  const world = authenticateWorlds(api, options.worlds);
  const routes: RouteContext = { api, contract, world, send: createSend(contract) };
  sessionRoutes(routes);
  profileRoutes(routes);
  eventRoutes(routes, streams);
  recoverRoute(routes);
  api.all('/{*rest}', noSuchOperation);
  api.use(createErrorRenderer(options.logger));
  const router = express.Router();
  router.use('/_sandbox', api);
  return { router, closeStreams: () => [...streams].forEach((s) => s.end()) };
}

/** Any other path under /_sandbox. The message never repeats the method or path asked for: they are the caller's text. */
function noSuchOperation(): never {
  throw new HttpError(
    404,
    'not_found',
    'No such sandbox operation; there are POST /_sandbox/reset, GET /_sandbox/sessions, PUT /_sandbox/sessions/{id}, GET and PUT /_sandbox/delivery-profile, GET /_sandbox/events and POST /_sandbox/recover.',
  );
}

/** What the operations are registered with. */
interface RouteContext {
  api: Router;
  contract: Contract;
  /** The caller's world (set by the authentication step). */
  world(req: Request): SandboxWorld;
  /** Sends `body` as a 200 after checking it against `schema`. */
  send(res: Response, schema: string, body: unknown): void;
}

/** Every answer is checked against the document: a mismatch is a defect, never sent. */
function createSend(contract: Contract): RouteContext['send'] {
  return (res, schema, body) => {
    const check = contract.validate(schema as SchemaName, body);
    if (!check.ok) throw new Error(`sandbox answer is not a ${schema}: ${check.message}`);
    res.status(200).json(body);
  };
}

/** Every operation needs a `sandbox_` key: 401 without one; the key picks the caller's world. */
function authenticateWorlds(api: Router, worlds: SandboxWorlds): (req: Request) => SandboxWorld {
  const worldOf = new WeakMap<Request, SandboxWorld>();
  api.use((req, _res, next) => {
    const credentials = parseBearer(req.headers.authorization ?? eventSourceToken(req));
    const worldId = credentials.kind === 'token' ? worlds.checkKey(credentials.token) : undefined;
    if (!worldId) return next(new HttpError(401, 'unauthorized', UNAUTHORIZED, { 'WWW-Authenticate': wwwAuthenticate(credentials) }));
    worldOf.set(req, worlds.world(worldId));
    next();
  });
  return (req) => worldOf.get(req) as SandboxWorld;
}

/** POST /reset, GET /sessions, PUT /sessions/{id}. */
function sessionRoutes({ api, contract, world, send }: RouteContext): void {
  api.post('/reset', (req, res) => {
    world(req).reset();
    send(res, 'SessionList', world(req).list());
  });
  api.get('/sessions', (req, res) => send(res, 'SessionList', world(req).list(pageOf(req))));
  api.put('/sessions/:session_id', express.json({ limit: BODY_LIMIT, strict: true }), (req, res) =>
    send(res, 'SandboxSession', setSession(contract, world(req), req)),
  );
}

/** PUT /_sandbox/sessions/{id}: the session as set, or the error answer's HttpError. */
function setSession(contract: Contract, world: SandboxWorld, req: Request) {
  const id = String(req.params.session_id);
  if (id.length > 256) throw new HttpError(400, 'bad_request', 'Invalid request: session_id must be at most 256 characters.');
  const body = contract.validate('SetSessionRequest' as SchemaName, req.body);
  if (!body.ok) throw new HttpError(400, 'bad_request', `Invalid body: ${body.message}; send {"status": "paused"} or another status.`);
  const outcome = world.set(id, (req.body as { status: string }).status);
  if (outcome.kind === 'full') {
    throw new HttpError(
      409,
      'sandbox_world_full',
      `This sandbox world holds its limit of ${outcome.limit} sessions: set the status of an existing session, or reset the world.`,
    );
  }
  return outcome.session;
}

/** GET and PUT /delivery-profile. */
function profileRoutes({ api, world, send }: RouteContext): void {
  api.get('/delivery-profile', (req, res) => send(res, 'DeliveryProfile', world(req).deliveryProfile()));
  api.put('/delivery-profile', express.json({ limit: BODY_LIMIT, strict: true }), (req, res) => {
    const reading = readDeliveryProfile(req.body);
    if (!reading.ok) throw new HttpError(400, 'bad_request', `Invalid body: ${reading.message}`);
    world(req).setDeliveryProfile(reading.profile);
    send(res, 'DeliveryProfile', world(req).deliveryProfile());
  });
}

/** POST /recover: the events of a window emitted again, once (or listed with dryRun). */
function recoverRoute({ api, contract, world, send }: RouteContext): void {
  api.post('/recover', express.json({ limit: BODY_LIMIT, strict: true }), (req, res) => {
    const body = contract.validate('RecoverRequest' as SchemaName, req.body);
    const { since, until, dryRun } = (req.body ?? {}) as { since?: string; until?: string; dryRun?: boolean };
    const window = { since: Date.parse(since ?? ''), until: Date.parse(until ?? '') };
    if (!body.ok || !(window.since < window.until)) {
      throw new HttpError(
        400,
        'bad_request',
        `Invalid body: ${body.ok ? 'until must be later than since' : body.message}; send {"since": "2026-11-21T16:00:00Z", "until": "2026-11-21T17:00:00Z"}.`,
      );
    }
    send(res, 'RecoverResult', world(req).recover({ ...window, dryRun: dryRun === true }));
  });
}

/** GET /events: the JSON list, or the live stream for text/event-stream. */
function eventRoutes({ api, contract, world, send }: RouteContext, streams: Set<Stream>): void {
  api.get('/events', (req, res) => {
    // Without Accept (or with */*) the JSON list; text/event-stream asks for the live stream.
    if (req.accepts(['application/json', 'text/event-stream']) !== 'text/event-stream') {
      send(res, 'EventList', { events: world(req).events() });
      return;
    }
    streamEvents(req, res, world(req), streams, (event) => {
      const check = contract.validate('SandboxEvent' as SchemaName, event);
      if (!check.ok) throw new Error(`sandbox event is not a SandboxEvent: ${check.message}`);
    });
  });
}

/** `limit` (1 to 1000) and `after` (1 to 256 characters) of GET /_sandbox/sessions; 400 otherwise. */
function pageOf(req: Request): { limit?: number; after?: string } {
  const { limit, after } = req.query;
  const page: { limit?: number; after?: string } = {};
  if (limit !== undefined) {
    if (typeof limit !== 'string' || !/^\d{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_PAGE_SIZE) {
      throw new HttpError(400, 'bad_request', `Invalid request: limit must be a whole number from 1 to ${MAX_PAGE_SIZE}.`);
    }
    page.limit = Number(limit);
  }
  if (after !== undefined) {
    if (typeof after !== 'string' || after.length === 0 || after.length > 256) {
      throw new HttpError(400, 'bad_request', 'Invalid request: after must be one session id of 1 to 256 characters (the next of the previous page).');
    }
    page.after = after;
  }
  return page;
}

/** An `EventSource`'s key (it cannot send headers) as `?access_token=` (RFC 6750 §2.3), on GET /_sandbox/events only. */
function eventSourceToken(req: Request): string | undefined {
  const token = req.query.access_token;
  return req.method === 'GET' && `${req.baseUrl}${req.path}` === '/_sandbox/events' && typeof token === 'string' ? `Bearer ${token}` : undefined;
}

/** Writes new events of `world` as SSE until the client leaves, the world is dropped or the server closes. */
function streamEvents(req: Request, res: Response, world: SandboxWorld, streams: Set<Stream>, check: (e: SandboxEvent) => void): void {
  res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  const write = (event: SandboxEvent) => {
    check(event);
    res.write(`event: session-event\nid: ${event.sequence}\ndata: ${JSON.stringify(event)}\n\n`);
  };
  // No id: the profile is state, not an event of the feed, and must not move Last-Event-ID.
  const writeProfile = (profile: DeliveryProfile) => res.write(`event: delivery-profile\ndata: ${JSON.stringify(profile)}\n\n`);
  res.write(': sandbox event stream\n\n');
  writeProfile(world.deliveryProfile());
  const lastId = req.headers['last-event-id'];
  if (typeof lastId === 'string' && /^\d{1,15}$/.test(lastId)) world.events(Number(lastId)).forEach(write);
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), SSE_HEARTBEAT_MS);
  heartbeat.unref();
  const stream: Stream = { end: () => res.end() };
  const unsubscribe = world.subscribe(write);
  const offProfile = world.onDeliveryProfile(writeProfile);
  const offDrop = world.onDrop(() => res.end());
  streams.add(stream);
  res.on('close', () => {
    clearInterval(heartbeat);
    unsubscribe();
    offProfile();
    offDrop();
    streams.delete(stream);
  });
}

/** Every control API failure in the Error body; body-parser and validation failures are 400s, never 500s. */
const createErrorRenderer =
  (logger: Pick<Logger, 'error'> | undefined): ErrorRequestHandler =>
  (err, _req, res, _next) => {
    const answer = toErrorAnswer(err);
    if (answer.defect) logger?.error({ err }, 'defect in the sandbox control API: answered 500');
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(answer.status).set(answer.headers).type('application/json').send(JSON.stringify(answer.body));
  };
