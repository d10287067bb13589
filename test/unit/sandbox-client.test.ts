/** createSandboxClient with an injected fetch: the requests it sends and how it reads the answers. */
import { describe, expect, it } from 'vitest';
import { createSandboxClient, newSandboxKey, SandboxClientError } from '../../client/sandbox/index.js';

const session = { id: 'a/b', status: 'paused', updatedAt: '2026-11-21T16:00:00.000Z' };
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function recording(answer: (req: Request) => Response | Promise<Response>) {
  const seen: { method: string; url: string; auth: string | null; accept: string | null; body: string }[] = [];
  const fetch = async (req: Request) => {
    seen.push({ method: req.method, url: req.url, auth: req.headers.get('authorization'), accept: req.headers.get('accept'), body: await req.clone().text() });
    return answer(req);
  };
  return { seen, fetch };
}

describe('createSandboxClient', () => {
  it('sends each call to its control route with the key, and returns the typed data', async () => {
    const key = newSandboxKey();
    const { seen, fetch } = recording((req) => {
      if (req.method === 'PUT') return json(200, session);
      if (req.url.endsWith('/events'))
        return json(200, { events: [{ sequence: 1, dedupeKey: 'f'.repeat(64), payload: { event: 'session.resumed', session: { id: 'x' }, timestamp: 't' } }] });
      return json(200, { sessions: [session] });
    });
    const client = createSandboxClient({ baseUrl: 'http://sandbox.test/', apiKey: key, fetch });
    expect(await client.setSession('a/b', 'paused')).toEqual(session);
    expect(await client.sessions()).toEqual([session]);
    expect(await client.reset()).toEqual([session]);
    expect((await client.events()).map((e) => e.sequence)).toEqual([1]);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'PUT http://sandbox.test/_sandbox/sessions/a%2Fb',
      'GET http://sandbox.test/_sandbox/sessions?limit=1000',
      'POST http://sandbox.test/_sandbox/reset',
      'GET http://sandbox.test/_sandbox/events',
    ]);
    expect(JSON.parse(seen[0]!.body)).toEqual({ status: 'paused' });
    expect(seen.every((s) => s.auth === `Bearer ${key}`)).toBe(true);
    expect(seen[3]?.accept).toBe('application/json');
  });

  it('throws SandboxClientError with the status and body for an answer other than 200, and with the cause for no answer', async () => {
    const refused = createSandboxClient({
      baseUrl: 'http://sandbox.test',
      apiKey: 'sandbox_x',
      fetch: async () => json(401, { success: false, error: 'unauthorized', message: 'The bearer token is not a sandbox key.' }),
    });
    const error = await refused.sessions().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxClientError);
    expect(error).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    expect((error as Error).message).toContain('not a sandbox key');
    const down = createSandboxClient({ baseUrl: 'http://sandbox.test', apiKey: 'sandbox_x', fetch: async () => Promise.reject(new TypeError('fetch failed')) });
    const noAnswer = await down.reset().catch((e: unknown) => e);
    expect(noAnswer).toBeInstanceOf(SandboxClientError);
    expect((noAnswer as SandboxClientError).cause).toBeInstanceOf(TypeError);
  });

  it('refuses a key without the sandbox_ prefix and a base URL that is not http(s), at creation', () => {
    expect(() => createSandboxClient({ baseUrl: 'http://x.test', apiKey: 'dev_key' })).toThrow(/sandbox_/);
    expect(() => createSandboxClient({ baseUrl: 'http://x.test', apiKey: 'sandbox_' })).toThrow(/sandbox_/);
    expect(() => createSandboxClient({ baseUrl: 'http://x.test', apiKey: 'sandbox_a b' })).toThrow(/sandbox_/);
    expect(() => createSandboxClient({ baseUrl: '/relative', apiKey: 'sandbox_a' })).toThrow(/baseUrl/);
    expect(newSandboxKey()).toMatch(/^sandbox_[0-9a-f-]{36}$/);
    expect(newSandboxKey()).not.toBe(newSandboxKey());
  });
});
