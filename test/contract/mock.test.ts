/**
 * The Prism mock serves the spec's named examples, and each answer validates against the
 * spec's own schemas (issue #2: first suite against the mock).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';
import { startPrism, type PrismServer } from '../helpers/prism.js';

let prism: PrismServer;
beforeAll(async () => {
  prism = await startPrism();
});
afterAll(async () => {
  await prism?.stop();
});

const resume = (id: string, headers: Record<string, string> = {}) =>
  fetch(`${prism.url}/v1/sessions/${encodeURIComponent(id)}/resume`, {
    method: 'POST',
    headers: { authorization: 'Bearer test-key', ...headers },
  });

describe('Prism mock of spec/openapi.yaml', () => {
  it('answers 200 with the `resumed` example, a valid ResumeResult', async () => {
    const res = await resume('sess_paused_1');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(contract.validate('ResumeResult', body)).toMatchObject({ ok: true });
    expect(body).toEqual({ success: true, message: 'Session resumed.' });
  });

  it('answers 401 with a Bearer challenge when there is no Authorization header', async () => {
    const res = await fetch(`${prism.url}/v1/sessions/sess_paused_1/resume`, { method: 'POST' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const body = await res.json();
    expect(contract.validate('Error', body)).toMatchObject({ ok: true });
    expect(body.error).toBe('unauthorized');
  });

  it('answers 404 for `Prefer: code=404` with a valid Error body', async () => {
    const res = await resume('sess_unknown', { prefer: 'code=404' });
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(contract.validate('Error', body)).toMatchObject({ ok: true });
    expect(body.error).toBe('not_found');
  });

  it('answers not_paused for `Prefer: code=409, example=notPaused`, the marker in the body text', async () => {
    const res = await resume('sess_running_1', { prefer: 'code=409, example=notPaused' });
    expect(res.status).toBe(409);
    const text = await res.text();
    expect(text).toContain('not_paused');
    expect(contract.validate('Error', JSON.parse(text))).toMatchObject({ ok: true });
  });
});
