/** The test setup's Redis: REDIS_URL, else a private redis-server; never what answers on 6379. */
import { createServer, type Server } from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { findRedis } from '../helpers/find-redis.js';
import { getFreePort } from '../helpers/free-port.js';
import { pingRedis } from '../helpers/redis-server.js';

/**
 * Something answering PING with +PONG on 127.0.0.1:6379 while the test runs: a fake server of
 * ours when the port is free (it counts who connects), or whatever already listens there (on a
 * shared machine, someone's Redis: the test only ever connects to it through the code under test).
 */
async function answerOnDefaultPort(): Promise<{ connections: () => number; close(): Promise<void> }> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count++;
    socket.on('data', () => socket.write('+PONG\r\n'));
    socket.on('error', () => undefined); // a peer that resets is not this test's concern
  });
  const bound = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false)); // EADDRINUSE: something already listens there
    server.listen(6379, '127.0.0.1', () => resolve(true));
  });
  return {
    connections: () => count,
    close: () => (bound ? new Promise((resolve) => server.close(() => resolve())) : Promise.resolve()),
  };
}

describe('findRedis', () => {
  it('uses REDIS_URL when it answers', async () => {
    const url = inject('redisUrl');
    await expect(findRedis({ envUrl: url })).resolves.toEqual({ url });
  });

  it('fails with a message naming REDIS_URL when it does not answer', async () => {
    const port = await getFreePort();
    await expect(findRedis({ envUrl: `redis://127.0.0.1:${port}` })).rejects.toThrow(/REDIS_URL=.* does not answer PING/);
  });

  it('without REDIS_URL, starts a private redis-server on a free port even when 127.0.0.1:6379 answers, and stops it', async () => {
    const fake = await answerOnDefaultPort();
    try {
      const found = await findRedis({});
      try {
        expect(found.url).not.toBe('redis://127.0.0.1:6379');
        expect(found.started).toBeDefined();
        expect(await pingRedis(found.url)).toBe(true);
      } finally {
        await found.started?.stop();
      }
      expect(await pingRedis(found.url)).toBe(false);
      expect(fake.connections()).toBe(0);
    } finally {
      await fake.close();
    }
  });
});
