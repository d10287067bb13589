/**
 * The typed client's raw calls without an Idempotency-Key, over real sockets: only failures that
 * applied nothing are retried. Node's fetch names a refused connection ECONNREFUSED (before the
 * request was sent) and a reset after the request was read ECONNRESET (after it); a key makes
 * every retryable failure retried.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSessionsClient, SessionsClientError } from '../../client/index.js';
import { getFreePort } from '../helpers/free-port.js';

const PATH = '/v1/sessions/{session_id}/resume' as const;
let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server that answers every request by `answer`, counting them. */
async function serve(answer: 'reset' | number): Promise<{ url: string; requests: () => number }> {
  let count = 0;
  server = createServer((request, response) => {
    count++;
    request.resume();
    request.on('end', () => {
      if (answer === 'reset') request.socket.resetAndDestroy();
      else response.writeHead(answer, { 'content-type': 'application/json' }).end('{"success":false,"error":"internal_error","message":"x"}');
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => count };
}

const call = (url: string, headers: Record<string, string> = {}) =>
  createSessionsClient({ baseUrl: url, apiKey: 'k', maxRetryDelayMs: 0 }).raw.POST(PATH, { params: { path: { session_id: 's1' } }, headers });

describe('raw calls without an Idempotency-Key', () => {
  it('are not retried after a 500 or a reset once the request was sent; with a key they are', async () => {
    const failing = await serve(500);
    expect((await call(failing.url)).response.status).toBe(500);
    expect(failing.requests()).toBe(1);
    await call(failing.url, { 'Idempotency-Key': 'key-1' });
    expect(failing.requests()).toBe(1 + 3);
    await new Promise<void>((resolve) => server!.close(() => resolve()));

    const resetting = await serve('reset');
    const error = await call(resetting.url).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SessionsClientError);
    expect(error).toMatchObject({ code: 'network', attempts: 1 });
    expect(String((error as Error).message)).toContain('ECONNRESET');
    expect(resetting.requests()).toBe(1);
    await call(resetting.url, { 'Idempotency-Key': 'key-2' }).catch(() => undefined);
    expect(resetting.requests()).toBe(1 + 3);
  });

  it('are retried after a refused connection, which sent nothing', async () => {
    const port = await getFreePort();
    const error = await call(`http://127.0.0.1:${port}`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'network', attempts: 3 });
    expect(String((error as Error).message)).toContain('ECONNREFUSED');
  });
});
