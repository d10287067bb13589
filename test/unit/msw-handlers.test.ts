/**
 * The typed MSW handlers (client/msw/handlers.ts) answer every scenario of the mock table
 * to a plain `fetch`, with no server (issue #6), from a generated module that stays equal
 * to the spec and imports nothing Node-only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createResumeHandlers } from '../../client/msw/handlers.js';
import { renderScenarioModule } from '../../tools/mock/scenario-module.js';
import { listScenarios } from '@session-resume-api/runtime/scenarios';

const BASE = 'https://sessions.api.test';
const scenarios = listScenarios();
const server = setupServer(...createResumeHandlers({ baseUrl: BASE }));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const resume = (headers: Record<string, string>, id = 'sess_paused_1') =>
  fetch(`${BASE}/v1/sessions/${encodeURIComponent(id)}/resume`, { method: 'POST', headers });

describe('MSW handlers from the spec', () => {
  it.each(scenarios.map((s) => [s.prefer, s] as const))('Prefer: %s answers the example', async (_, s) => {
    const res = await resume({ authorization: 'Bearer mock-key', prefer: s.prefer });
    expect(res.status).toBe(s.status);
    for (const [name, value] of Object.entries(s.headers)) expect(res.headers.get(name)).toBe(value);
    expect(await res.json()).toEqual(s.body);
  });

  it('answers 200 `resumed` without Prefer, and 401 `missingToken` without a token', async () => {
    const ok = await resume({ authorization: 'Bearer mock-key' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual(scenarios.find((s) => s.example === 'resumed')?.body);
    const anonymous = await resume({ prefer: 'code=404' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await anonymous.json()).toEqual(scenarios.find((s) => s.example === 'missingToken')?.body);
  });

  it('takes a default scenario per test, e.g. every resume is not_paused', async () => {
    server.use(...createResumeHandlers({ baseUrl: BASE, scenario: 'notPaused' }));
    const res = await resume({ authorization: 'Bearer mock-key' }, 'any id/with slash');
    expect(res.status).toBe(409);
    expect(await res.text()).toContain('not_paused');
  });

  it('refuses an unknown scenario at creation', () => {
    expect(() => createResumeHandlers({ baseUrl: BASE, scenario: 'nope' })).toThrow(/unknown scenario "nope"/);
  });

  it('embeds the examples as generated from the spec (run `npm run mock:generate`)', () => {
    const file = readFileSync(new URL('../../client/msw/scenarios.generated.ts', import.meta.url), 'utf8');
    expect(file).toBe(renderScenarioModule(scenarios));
  });

  it('imports nothing Node-only, and not the spec loader', () => {
    const dir = new URL('../../client/msw/', import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    expect(files).toContain('handlers.ts');
    for (const file of files) {
      const imports = [...readFileSync(new URL(file, dir), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]);
      for (const spec of imports) expect(spec, `${file} imports ${spec}`).not.toMatch(/^node:|spec\/contract|spec\/scenarios/);
    }
  });
});
