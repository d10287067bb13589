/**
 * Every row of the mock scenario table (derived from the spec) is answered by the real
 * Prism mock as documented, and the mock section of docs/mock-sandbox-msw.md is exactly the rendered table.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';
import { MOCK_SAMPLE_KEY, readMockSection, renderMockReadme } from '../../tools/mock/scenario-table.js';
import { listScenarios } from '@session-resume-api/runtime/scenarios';
import { startPrism, type PrismServer } from '../helpers/prism.js';

const scenarios = listScenarios();

let prism: PrismServer;
beforeAll(async () => {
  prism = await startPrism();
});
afterAll(async () => {
  await prism?.stop();
});

describe('mock scenario table', () => {
  it('has one row per named example of resumeSession, covering the statuses a frontend handles', () => {
    expect(scenarios.map((s) => s.status)).toEqual(expect.arrayContaining([200, 401, 404, 409, 429, 503]));
    expect(scenarios.find((s) => s.example === 'notPaused')).toMatchObject({
      status: 409,
      prefer: 'code=409, example=notPaused',
    });
    expect(scenarios.find((s) => s.status === 429)?.headers).toEqual({ 'Retry-After': '30' });
  });

  it("docs/mock-sandbox-msw.md's mock section is the table rendered from the spec (run `npm run mock:generate`)", () => {
    const file = readFileSync(new URL('../../docs/mock-sandbox-msw.md', import.meta.url), 'utf8');
    expect(readMockSection(file)).toBe(renderMockReadme(scenarios));
  });

  it.each(scenarios.map((s) => [s.prefer, s] as const))('Prefer: %s answers as the table says', async (_, s) => {
    const res = await fetch(`${prism.url}/v1/sessions/sess_paused_1/resume`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MOCK_SAMPLE_KEY}`, prefer: s.prefer },
    });
    expect(res.status).toBe(s.status);
    for (const [name, value] of Object.entries(s.headers)) expect(res.headers.get(name)).toBe(value);
    const body = await res.json();
    expect(body).toEqual(s.body);
    expect(contract.validate(s.status === 200 ? 'ResumeResult' : 'Error', body)).toMatchObject({ ok: true });
  });
});
