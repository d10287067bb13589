/**
 * The servers the bench loads, each on 127.0.0.1 port 0: the reference server (memory and
 * Redis stores, response validation on or off), the resume baselines (express 5 with
 * express-openapi-validator's public middleware on the same spec, bare node:http, bare
 * express 5, fastify 5 with its own schema validation), the webhook receiver (memory and
 * Redis stores) and a bare node:http 200 baseline.
 */
import express, { type ErrorRequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { specPath } from '@session-resume-api/runtime/contract';
import Fastify from 'fastify';
import { createMemoryEventStore, createWebhookReceiver } from '../client/webhooks/index.js';
import { createRedisEventStore } from '../client/webhooks/redis/index.js';
import { RESUME_ROUTE } from '@session-resume-api/runtime/resume-path';
import { createApp, type AppDeps } from '../server/app.js';
import { createMemorySessionStore } from '../server/sessions/memory-session-store.js';
import { createRedisClient } from '../server/redis/redis-client.js';
import { waitUntilConnected } from '../server/redis/create-redis-connection.js';
import { createRedisSessionStore } from '../server/sessions/redis-session-store.js';
import type { SessionStore } from '../server/sessions/session-store.js';
import { listen } from '../test/helpers/listen.js';
import type { Target } from './target.js';
import { watchInFront } from './watch-target.js';
import { startHandWrittenReceiver, startHonoFetchReceiver, startSignedKitReceiver } from './receiver-targets.js';

export type { Target } from './target.js';

/** The key the bench sends to the reference server and the baselines. */
export const BENCH_KEY = 'bench-key';
/** The Redis key prefix of the bench's sessions (on the bench's private redis-server). */
export const BENCH_REDIS_PREFIX = 'bench:';
/** The one running session every resume case asks for: the steady state is 409 not_paused. */
export const BENCH_SESSION = 'bench_running';

// The exact bytes the reference server sends for not_paused (errorBody, x-decisions: not-paused-status).
const NOT_PAUSED = { success: false, error: 'not_paused', message: 'Session is not paused (not_paused).' };
const NOT_PAUSED_JSON = JSON.stringify(NOT_PAUSED);

type ServerOptions = Pick<AppDeps, 'validateResponses' | 'rateLimit'>;

async function referenceServer(store: SessionStore, cleanup: () => Promise<void>, options: ServerOptions = {}): Promise<Target> {
  // One running session: the steady-state resume path ends in 409 not_paused after auth,
  // request validation, the store call and (when on) response validation.
  await store.seed([{ id: BENCH_SESSION, status: 'running' }]);
  const server = await listen(await createApp({ store, apiKeys: [BENCH_KEY], ...options }));
  return { ...server, stop: async () => (await server.close(), await cleanup()) };
}

/** The reference server on the in-memory store. */
export const startMemoryReferenceServer = (options: ServerOptions = {}): Promise<Target> =>
  referenceServer(createMemorySessionStore(), async () => undefined, options);

/** The reference server on Redis at `redisUrl` (sessions under BENCH_REDIS_PREFIX). */
export async function startRedisReferenceServer(redisUrl: string, options: ServerOptions = {}): Promise<Target> {
  const client = createRedisClient(redisUrl);
  await waitUntilConnected(client);
  return referenceServer(createRedisSessionStore({ client, keyPrefix: BENCH_REDIS_PREFIX }), async () => void (await client.quit()), options);
}

/** Baseline: bare express answering the same 409 JSON, no validator, no auth, no store. */
export async function startBareExpress(): Promise<Target> {
  const app = express();
  app.post(RESUME_ROUTE, (_req, res) => {
    res.status(409).json(NOT_PAUSED);
  });
  const server = await listen(app);
  return { ...server, stop: () => server.close() };
}

/**
 * The resume group's baseline: express 5 and express-openapi-validator's middleware as its
 * README shows, on the same spec and route, with nothing of ours: `express.json()`, the
 * validator (requests checked, a bearer handler comparing the token, responses as `validate`
 * says), the route answering the same 409 JSON, and a plain error handler.
 */
export async function startExpressValidator(validate: { responses: boolean } = { responses: false }): Promise<Target> {
  const app = express();
  app.use(express.json());
  app.use(
    OpenApiValidator.middleware({
      apiSpec: specPath,
      validateRequests: true,
      validateResponses: validate.responses,
      validateSecurity: { handlers: { bearerAuth: (req) => req.headers.authorization === `Bearer ${BENCH_KEY}` } },
    }),
  );
  app.post(RESUME_ROUTE, (_req, res) => {
    res.status(409).json(NOT_PAUSED);
  });
  const onError: ErrorRequestHandler = (err: { status?: number; message?: string }, _req, res, _next) => {
    res.status(err.status ?? 500).json({ success: false, error: 'error', message: err.message ?? 'error' });
  };
  app.use(onError);
  const server = await listen(app);
  return { ...server, stop: () => server.close() };
}

/** Baseline: bare node:http answering the same 409 JSON to every request (the floor of the stack). */
export async function startBareHttpResume(): Promise<Target> {
  const server = await listen((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(409, { 'content-type': 'application/json; charset=utf-8' }).end(NOT_PAUSED_JSON));
  });
  return { ...server, stop: () => server.close() };
}

/**
 * Baseline: fastify 5 with its own JSON-schema work on the same route: the Authorization
 * header and the path parameter validated by Ajv, the 409 body serialised from its schema.
 */
export async function startFastify(): Promise<Target> {
  const app = Fastify({ logger: false });
  // Like the reference server (x-decisions: request-body): an empty JSON body is no body.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, body === '' ? undefined : JSON.parse(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  const error = {
    type: 'object',
    required: ['success', 'error', 'message'],
    properties: { success: { type: 'boolean' }, error: { type: 'string' }, message: { type: 'string' } },
  };
  app.post(
    '/v1/sessions/:session_id/resume',
    {
      schema: {
        params: { type: 'object', required: ['session_id'], properties: { session_id: { type: 'string', minLength: 1 } } },
        headers: { type: 'object', required: ['authorization'], properties: { authorization: { type: 'string', pattern: '^[Bb]earer +\\S+$' } } },
        response: { 409: error },
      },
    },
    async (_req, reply) => reply.code(409).send(NOT_PAUSED),
  );
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => app.close(), stop: () => app.close() };
}

let receivers = 0;
/**
 * The webhook receiver kit with a no-op onEvent on `store` ('memory', or a Redis URL). Each
 * Redis receiver has a prefix (so a queue) of its own: a case never processes the jobs an
 * earlier case left queued, so its CPU per acknowledgement is its own.
 */
export async function startReceiver(store: 'memory' | { redisUrl: string; process?: boolean }): Promise<Target> {
  const receiver = createWebhookReceiver({
    store:
      store === 'memory'
        ? createMemoryEventStore()
        : createRedisEventStore({ url: store.redisUrl, prefix: `bench-${process.pid}-${++receivers}`, process: store.process ?? true }),
    onEvent: async () => undefined,
  });
  const server = await listen(receiver.handler);
  return { ...server, stop: async () => (await server.close(), await receiver.close()) };
}

/** Baseline: bare node:http reading the body and answering 200. */
export async function startBareHttp(): Promise<Target> {
  const server = await listen((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'));
  });
  return { ...server, stop: () => server.close() };
}

/** Baseline of the client cases: bare node:http answering every request 200 with a ResumeResult. */
export async function startBareHttpResumed(): Promise<Target> {
  const body = JSON.stringify({ success: true, message: 'Session resumed.' });
  const server = await listen((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  });
  return { ...server, stop: () => server.close() };
}

/** The targets bench/serve-target.ts can start by name (for profiles and the client cases). */
export const TARGET_NAMES = [
  'express-validator',
  'express-validator-responses',
  'reference-memory',
  'reference-memory-unchecked',
  'reference-memory-rate-limited',
  'reference-memory-watched',
  'reference-memory-proxied',
  'reference-redis',
  'express',
  'fastify',
  'http-resume',
  'http-resumed',
  'http-200',
  'receiver-memory',
  'receiver-redis',
  'receiver-redis-receive-only',
  'receiver-hand-written',
  'receiver-redis-signed',
  'receiver-memory-hono',
] as const;
/** One of TARGET_NAMES. */
export type TargetName = (typeof TARGET_NAMES)[number];

/** Starts a target by name; the Redis ones need `redisUrl`. */
export function startTarget(name: TargetName, redisUrl?: string): Promise<Target> {
  switch (name) {
    case 'reference-memory':
      return startMemoryReferenceServer({ validateResponses: true });
    case 'reference-memory-unchecked':
      return startMemoryReferenceServer({ validateResponses: false });
    // A limit no load reaches: the limiter's bookkeeping on every request, never a 429.
    case 'reference-memory-rate-limited':
      return startMemoryReferenceServer({ validateResponses: false, rateLimit: { limit: 1e9, windowMs: 60_000 } });
    case 'reference-memory-watched':
      return startMemoryReferenceServer({ validateResponses: false }).then((server) => watchInFront(server));
    case 'reference-memory-proxied':
      return startMemoryReferenceServer({ validateResponses: false }).then((server) => watchInFront(server, false));
    case 'reference-redis':
      return startRedisReferenceServer(redisUrl ?? 'redis://127.0.0.1:6379', { validateResponses: false });
    case 'express-validator':
      return startExpressValidator();
    case 'express-validator-responses':
      return startExpressValidator({ responses: true });
    case 'express':
      return startBareExpress();
    case 'fastify':
      return startFastify();
    case 'http-resume':
      return startBareHttpResume();
    case 'http-resumed':
      return startBareHttpResumed();
    case 'http-200':
      return startBareHttp();
    case 'receiver-memory':
      return startReceiver('memory');
    case 'receiver-redis':
      return startReceiver({ redisUrl: redisUrl ?? 'redis://127.0.0.1:6379' });
    // Acknowledges and hands over only; another instance would process (none does here).
    case 'receiver-redis-receive-only':
      return startReceiver({ redisUrl: redisUrl ?? 'redis://127.0.0.1:6379', process: false });
    case 'receiver-hand-written':
      return startHandWrittenReceiver(redisUrl ?? 'redis://127.0.0.1:6379');
    case 'receiver-redis-signed':
      return startSignedKitReceiver(redisUrl ?? 'redis://127.0.0.1:6379');
    case 'receiver-memory-hono':
      return startHonoFetchReceiver();
  }
}
