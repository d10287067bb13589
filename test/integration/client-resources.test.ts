/**
 * A finished resume() leaves nothing behind: its attempt's deadline timer is cleared and the
 * caller's abort signal has no listener of ours left. Before, every call kept a timer (and
 * the abort controller it holds) for the whole timeoutMs, and a signal shared by many calls
 * gathered one listener per call.
 */
import { createHook } from 'node:async_hooks';
import { createServer, type Server } from 'node:http';
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionsClient } from '../../client/index.js';

// An unusual deadline, so that the client's timers can be told from any other.
const TIMEOUT_MS = 54_321;

let server: Server;
let baseUrl: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    const notPaused = req.url?.includes('running');
    res.writeHead(notPaused ? 409 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(notPaused ? { success: false, error: 'not_paused', message: 'not_paused' } : { success: true, message: 'ok' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('resources of a finished resume()', () => {
  it('clears the deadline timer of every call once its answer is read', async () => {
    const pending = new Set<number>();
    const hook = createHook({
      init(id, type, _trigger, resource) {
        if (type === 'Timeout' && (resource as { _idleTimeout?: number })._idleTimeout === TIMEOUT_MS) pending.add(id);
      },
      destroy(id) {
        pending.delete(id);
      },
    }).enable();
    try {
      const client = createSessionsClient({ baseUrl, apiKey: 'k', timeoutMs: TIMEOUT_MS });
      const kinds = [];
      for (let i = 0; i < 10; i++) kinds.push((await client.resume(i % 2 ? 's_running' : 's_paused')).kind);
      expect(kinds).toEqual(Array.from({ length: 10 }, (_, i) => (i % 2 ? 'not_paused' : 'resumed')));
      // destroy hooks run asynchronously after clearTimeout.
      await new Promise((resolve) => setImmediate(resolve));
      expect(pending.size).toBe(0);
    } finally {
      hook.disable();
    }
  });

  it('leaves no abort listener on a signal shared by many calls', async () => {
    const client = createSessionsClient({ baseUrl, apiKey: 'k' });
    const controller = new AbortController();
    for (let i = 0; i < 20; i++) await client.resume('s_paused', { signal: controller.signal });
    await Promise.all(Array.from({ length: 20 }, () => client.resume('s_paused', { signal: controller.signal })));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
