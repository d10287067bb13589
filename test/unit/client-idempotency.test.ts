/** The client sends one Idempotency-Key per resume() call, the same on every attempt (injected fetch, no sockets). */
import { describe, expect, it } from 'vitest';
import { createSessionsClient } from '../../client/index.js';

/** A fetch that answers `statuses` in turn (the last one repeats) and records each request's key. */
function scripted(statuses: number[]) {
  const keys: (string | null)[] = [];
  const fetch = async (request: Request) => {
    keys.push(request.headers.get('idempotency-key'));
    const status = statuses[Math.min(keys.length - 1, statuses.length - 1)]!;
    const body = status === 200 ? { success: true, message: 'Session resumed.' } : { success: false, error: 'service_unavailable', message: 'x' };
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'retry-after': '0' } });
  };
  return { keys, fetch };
}

describe('Idempotency-Key in the client', () => {
  it('sends the same generated key on every attempt of one call, and a new key on the next call', async () => {
    const { keys, fetch } = scripted([503, 503, 200]);
    const client = createSessionsClient({ baseUrl: 'https://api.example.org', apiKey: 'k', fetch });
    const outcome = await client.resume('s1');
    expect(outcome).toMatchObject({ kind: 'resumed', attempts: 3 });
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    await client.resume('s1');
    expect(keys[3]).not.toBe(keys[0]);
  });

  it('uses the caller idempotencyKey and refuses an empty or over-long one', async () => {
    const { keys, fetch } = scripted([200]);
    const client = createSessionsClient({ baseUrl: 'https://api.example.org', apiKey: 'k', fetch });
    await client.resume('s1', { idempotencyKey: 'my-key-1' });
    expect(keys).toEqual(['my-key-1']);
    await expect(client.resume('s1', { idempotencyKey: '' })).rejects.toThrow(TypeError);
    await expect(client.resume('s1', { idempotencyKey: 'x'.repeat(256) })).rejects.toThrow(/1 to 255/);
  });
});
