/**
 * The one conformance suite, run in-process against each target (issue #6): the Prism mock
 * (driven by Prefer) and the reference server in memory, on Redis and on a private Redis
 * Cluster (stateful checks).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createApp, type AppDeps } from '../../server/app.js';
import { createMemorySessionStore } from '../../server/sessions/memory-session-store.js';
import { createRedisClient } from '../../server/redis/redis-client.js';
import { createRedisSessionStore } from '../../server/sessions/redis-session-store.js';
import { createRedisConnection, waitUntilConnected } from '../../server/redis/create-redis-connection.js';
import { startRedisCluster } from '../helpers/redis-cluster.js';
import type { SessionStore } from '../../server/sessions/session-store.js';
import { listen } from '../helpers/listen.js';
import { deletePrefix } from '../helpers/redis-keys.js';
import type { ConformanceOptions } from '../../cli/conformance/conformance-options.js';
import { runConformance } from '../../cli/conformance/run-conformance.js';
import { startPrism } from '../helpers/prism.js';

/** A target: starts something and says how to reach it; `expectedSkips` are the checks it cannot run. */
interface Target {
  name: string;
  start(): Promise<{ options: ConformanceOptions; stop(): Promise<void> }>;
  expectedSkips: string[];
}

const API_KEY = 'conformance-key';

/** The reference server on `store`, seeded with one paused and one running session. */
async function referenceServer(store: SessionStore, cleanup: () => Promise<void> = async () => undefined, deps: Partial<AppDeps> = {}) {
  await store.seed([
    { id: 'conf_paused', status: 'paused' },
    { id: 'conf_running', status: 'running' },
  ]);
  const server = await listen(await createApp({ store, apiKeys: [API_KEY], ...deps }));
  return {
    options: { baseUrl: server.url, apiKey: API_KEY, pausedSession: 'conf_paused', notPausedSession: 'conf_running' },
    stop: async () => {
      await server.close();
      await cleanup();
    },
  };
}

const targets: Target[] = [
  {
    name: 'Prism mock (driven by Prefer)',
    expectedSkips: ['lowercase `bearer` scheme is accepted (RFC 7235 §2.1)'],
    async start() {
      const prism = await startPrism();
      return { options: { baseUrl: prism.url, apiKey: 'mock-key', mode: 'mock' }, stop: () => prism.stop() };
    },
  },
  {
    name: 'reference server, in-memory store',
    expectedSkips: [],
    start: () => referenceServer(createMemorySessionStore()),
  },
  {
    // x-decisions: rate-limit-headers, cors-headers: the optional headers are on, so their checks bite.
    name: 'reference server, rate limit and CORS on',
    expectedSkips: [],
    start: () => referenceServer(createMemorySessionStore(), undefined, { rateLimit: { limit: 1000, windowMs: 60_000 }, corsOrigins: ['*'] }),
  },
  {
    name: 'reference server, Redis store',
    expectedSkips: [],
    async start() {
      const client = createRedisClient(inject('redisUrl'));
      await waitUntilConnected(client);
      // A random prefix on the shared Redis: never FLUSHALL.
      const keyPrefix = `conformance-${randomUUID()}:`;
      return referenceServer(createRedisSessionStore({ client, keyPrefix }), async () => {
        await deletePrefix(inject('redisUrl'), keyPrefix);
        await client.quit();
      });
    },
  },
  {
    name: 'reference server, Redis store on a 3-primary Redis Cluster',
    expectedSkips: [],
    async start() {
      const cluster = await startRedisCluster({ primaries: 3 });
      const client = createRedisConnection({ clusterNodes: cluster.nodes });
      await waitUntilConnected(client);
      return referenceServer(createRedisSessionStore({ client }), async () => {
        client.disconnect();
        await cluster.stop();
      });
    },
  },
];

const stops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

describe.each(targets)('conformance against $name', (target) => {
  it('passes every check it can run, and skips only the known ones', async () => {
    const { options, stop } = await target.start();
    stops.push(stop);
    const report = await runConformance(options);
    const failed = report.results.filter((r) => r.outcome === 'fail');
    expect(failed).toEqual([]);
    expect(report.results.filter((r) => r.outcome === 'skip').map((r) => r.name)).toEqual(target.expectedSkips);
    expect(report.ok).toBe(true);
  });
});

describe('conformance detects a non-conforming target', () => {
  it('fails the stateful checks against a stateless mock treated as a live service', async () => {
    const prism = await startPrism();
    stops.push(() => prism.stop());
    // Without Prefer, Prism answers 200 to any token and any id: a service that ignores
    // auth, never says 404 and resumes twice.
    const report = await runConformance({ baseUrl: prism.url, apiKey: 'k', pausedSession: 'sess_paused_1' });
    const outcome = Object.fromEntries(report.results.map((r) => [r.name, r.outcome]));
    expect(report.ok).toBe(false);
    expect(outcome).toMatchObject({
      'wrong token → 401, same answer for an unknown and an existing session': 'fail',
      'unknown session id → 404': 'fail',
      'paused session → 200 success, then not_paused on a second call': 'fail',
      'session that is not paused → not_paused marker': 'skip',
    });
  });

  it('fails an answer that does not match the spec (undeclared status, body shape)', async () => {
    const { createServer } = await import('node:http');
    // A target answering 418 text/plain to everything.
    const server = createServer((_, res) => res.writeHead(418, { 'content-type': 'text/plain' }).end('teapot'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    stops.push(() => new Promise((r) => server.close(() => r())));
    const { port } = server.address() as { port: number };
    const report = await runConformance({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k' });
    expect(report.results.find((r) => r.name === 'unknown session id → 404')?.detail).toContain('status 418 is not declared by the spec');
  });
});

describe('answer validation against the declared responses', () => {
  it('requires Retry-After on 429, the Bearer challenge on 401, and the Error body shape', async () => {
    const { createResponseCheck } = await import('../../cli/conformance/response-check.js');
    const { contract } = await import('@session-resume-api/runtime/contract');
    const check = createResponseCheck(contract, '/v1/sessions/{session_id}/resume', 'post');
    const json = { 'content-type': 'application/json' };
    const error = JSON.stringify({ success: false, error: 'rate_limited', message: 'slow down' });
    expect(check({ status: 429, headers: new Headers({ ...json, 'retry-after': '30' }), text: error })).toEqual([]);
    expect(check({ status: 429, headers: new Headers(json), text: error })).toEqual(['required header Retry-After is missing']);
    expect(check({ status: 429, headers: new Headers({ ...json, 'retry-after': 'soon' }), text: error })[0]).toContain('header Retry-After');
    expect(check({ status: 401, headers: new Headers({ ...json, 'www-authenticate': 'Basic' }), text: error })[0]).toContain('header WWW-Authenticate');
    expect(check({ status: 404, headers: new Headers(json), text: '{"success":true}' })[0]).toContain('body does not match Error');
  });
});

describe('conformance detects wrong bounds, rate-limit and CORS headers', () => {
  it('fails a target that accepts any id, does not count requests and allows another origin', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      if (!req.headers.authorization) {
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
        res.end(JSON.stringify({ success: false, error: 'unauthorized', message: 'No key.' }));
        return;
      }
      res.writeHead(404, {
        'content-type': 'application/json',
        ratelimit: '"p"; r=5; t=60',
        'ratelimit-policy': '"p"; q=10; w=60',
        'access-control-allow-origin': 'https://other.example',
      });
      res.end(JSON.stringify({ success: false, error: 'not_found', message: 'Session not found.' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    stops.push(() => new Promise((r) => server.close(() => r())));
    const { port } = server.address() as { port: number };
    const report = await runConformance({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k' });
    const result = (name: string) => report.results.find((r) => r.name === name);
    expect(result('session id over 256 characters → 400, after the key check (401 first)')).toMatchObject({ outcome: 'fail' });
    expect(result('session id with a control character → 400, after the key check (401 first)')).toMatchObject({ outcome: 'fail' });
    expect(result('rate-limit fields, when sent, are readable and count each request')?.detail).toContain('did not go down (5 then 5)');
    expect(result('CORS headers, when sent, allow the page origin and expose the headers a client reads')?.detail).toContain(
      'Access-Control-Allow-Origin is "https://other.example"',
    );
  });
});
