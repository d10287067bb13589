/**
 * Every answer of the reference server, checked by an independent validator: the resume
 * scenarios run through `prism proxy spec/openapi.yaml <server> --errors`, which fails any
 * request or response that breaks the spec (issue #3). Scenarios whose request Prism itself
 * refuses (it answers those without forwarding) run only in the direct suite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.js';
import { createMemorySessionStore } from '../../server/sessions/memory-session-store.js';
import { StoreUnavailableError } from '../../server/errors/store-errors.js';
import { listen, type Listening } from '../helpers/listen.js';
import { startPrism, type PrismServer } from '../helpers/prism.js';
import { resumeScenarios, SCENARIO_SESSIONS } from '../helpers/resume-scenarios.js';

const API_KEY = 'prism-key';
const upstreams: Listening[] = [];
const prisms: PrismServer[] = [];

/**
 * A fetch that records every answer Prism marks: `sl-violations` (a request or response
 * that breaks the spec) or a Prism-generated problem+json answer (not forwarded).
 */
function checkedFetch(found: string[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const violations = res.headers.get('sl-violations');
    if (violations) found.push(`${init?.method ?? 'GET'} ${String(input)}: ${violations}`);
    if (res.headers.get('content-type')?.startsWith('application/problem+json')) {
      found.push(`${init?.method ?? 'GET'} ${String(input)}: answered by Prism, not forwarded`);
    }
    return res;
  };
}

async function proxied(handler: Parameters<typeof listen>[0]): Promise<PrismServer> {
  const upstream = await listen(handler);
  upstreams.push(upstream);
  const prism = await startPrism({ proxyTo: upstream.url, errors: true });
  prisms.push(prism);
  return prism;
}

let prism: PrismServer;
let edge: PrismServer;

beforeAll(async () => {
  const store = createMemorySessionStore();
  await store.seed(SCENARIO_SESSIONS);
  // An upstream whose store is down and whose limit is 1 request: 503 first, then 429.
  const down = createMemorySessionStore();
  down.resume = async () => {
    throw new StoreUnavailableError('down');
  };
  [prism, edge] = await Promise.all([
    proxied(await createApp({ store, apiKeys: [API_KEY] })),
    proxied(await createApp({ store: down, apiKeys: [API_KEY], rateLimit: { limit: 1, windowMs: 60_000 } })),
  ]);
});

afterAll(async () => {
  await Promise.all(prisms.map((p) => p.stop()));
  await Promise.all(upstreams.map((u) => u.close()));
});

describe('reference server through prism proxy --errors', () => {
  for (const scenario of resumeScenarios.filter((s) => s.viaPrism)) {
    it(scenario.name, async () => {
      const found: string[] = [];
      // Violations are checked first: a violating answer also fails the scenario's own checks.
      const run = scenario.run({ baseUrl: prism.url, apiKey: API_KEY, fetch: checkedFetch(found) });
      await run.catch(() => undefined);
      expect(found).toEqual([]);
      await run;
    });
  }

  it('503 service_unavailable and 429 rate_limited (with Retry-After) pass too', async () => {
    const found: string[] = [];
    const call = () => checkedFetch(found)(`${edge.url}/v1/sessions/any/resume`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` } });
    const first = await call();
    expect(first.status).toBe(503);
    expect((await first.json()).error).toBe('service_unavailable');
    const second = await call();
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await second.json()).error).toBe('rate_limited');
    expect(found).toEqual([]);
  });
});

describe('the Prism check can fail', () => {
  it('flags an upstream whose answer breaks the spec', async () => {
    const liar = await proxied((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: 'yes' }));
    });
    const found: string[] = [];
    const res = await checkedFetch(found)(`${liar.url}/v1/sessions/x/resume`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(res.status).toBe(500);
    expect(found.join('\n')).toContain('success must be boolean');
  });
});
