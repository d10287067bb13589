/**
 * Regression: the per-attempt timeout fires even when a garbage collection runs while the
 * request is waiting. Node 20 loses the abort of a signal that reaches fetch only inside a
 * Request (nodejs/undici#4068) or through AbortSignal.any (nodejs/node#57736); under CPU load
 * that hung `session-resume-api resume --timeout-ms` until it was killed.
 */
import { createServer, type Server } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionsClient, SessionsClientError } from '../../client/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let server: Server;
let baseUrl: string;
beforeAll(async () => {
  server = createServer(() => undefined); // never answers
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('resume timeout with a garbage collection mid-request', () => {
  it('still throws SessionsClientError timeout', async () => {
    const client = createSessionsClient({ baseUrl, apiKey: 'k', timeoutMs: 300, maxRetries: 0 });
    const collecting = setInterval(gc, 20);
    try {
      // If the abort is lost the call never settles and the test times out (fails).
      const error = await client.resume('s1').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SessionsClientError);
      expect((error as SessionsClientError).code).toBe('timeout');
    } finally {
      clearInterval(collecting);
    }
  }, 10_000);
});
