/**
 * createSessionsClient against the Prism mock of spec/openapi.yaml: each outcome kind for the
 * answers the contract declares, chosen with `Prefer` through the per-call headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionsClient, type SessionsClient } from '../../client/index.js';
import { contract } from '@session-resume-api/runtime/contract';
import { startPrism, type PrismServer } from '../helpers/prism.js';

let prism: PrismServer;
let client: SessionsClient;
beforeAll(async () => {
  prism = await startPrism();
  client = createSessionsClient({ baseUrl: prism.url, apiKey: 'test-key', maxRetries: 0 });
});
afterAll(async () => {
  await prism?.stop();
});

const prefer = (value: string) => ({ headers: { Prefer: value } });

describe('client against the Prism mock', () => {
  it('resumed: the 200 example, a valid ResumeResult', async () => {
    const outcome = await client.resume('sess_paused_1');
    if (outcome.kind !== 'resumed') throw new Error(`got ${outcome.kind}`);
    expect(outcome.result).toEqual({ success: true, message: 'Session resumed.' });
    expect(contract.validate('ResumeResult', outcome.result).ok).toBe(true);
  });

  it('not_paused: code=409, example=notPaused', async () => {
    const outcome = await client.resume('sess_running_1', prefer('code=409, example=notPaused'));
    expect(outcome).toMatchObject({ kind: 'not_paused', status: 409, message: 'Session is not paused (not_paused).' });
  });

  it('not_found: code=404', async () => {
    expect(await client.resume('sess_unknown', prefer('code=404'))).toMatchObject({ kind: 'not_found', status: 404 });
  });

  it('unauthorized: code=401, and a real 401 when no key reaches Prism', async () => {
    expect(await client.resume('sess_paused_1', prefer('code=401'))).toMatchObject({ kind: 'unauthorized', status: 401 });
    const stripped = createSessionsClient({
      baseUrl: prism.url,
      apiKey: 'k',
      fetch: (request) => {
        const headers = new Headers(request.headers);
        headers.delete('authorization');
        return fetch(new Request(request, { headers }));
      },
    });
    expect(await stripped.resume('sess_paused_1')).toMatchObject({ kind: 'unauthorized', status: 401 });
  });

  it('rate_limited: code=429 with the Retry-After the contract declares', async () => {
    const outcome = await client.resume('sess_paused_1', prefer('code=429'));
    if (outcome.kind !== 'rate_limited') throw new Error(`got ${outcome.kind}`);
    expect(outcome.status).toBe(429);
    expect(outcome.retryAfterSeconds).toBe(30);
  });

  it('unexpected: code=503 and code=500 carry status and body text', async () => {
    const outcome = await client.resume('sess_paused_1', prefer('code=503'));
    expect(outcome).toMatchObject({ kind: 'unexpected', status: 503, message: 'The session store is unavailable; retry later.' });
    expect(await client.resume('sess_paused_1', prefer('code=500'))).toMatchObject({ kind: 'unexpected', status: 500 });
  });

  it('retries a 503 from the mock up to maxRetries', async () => {
    const retrying = createSessionsClient({ baseUrl: prism.url, apiKey: 'k', maxRetries: 1 });
    expect(await retrying.resume('sess_paused_1', prefer('code=503'))).toMatchObject({ kind: 'unexpected', attempts: 2 });
  });
});
