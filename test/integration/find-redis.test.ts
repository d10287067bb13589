/** The test setup's Redis discovery: REDIS_URL, else the default URL, else a private redis-server. */
import { describe, expect, inject, it } from 'vitest';
import { findRedis } from '../helpers/find-redis.js';
import { getFreePort } from '../helpers/free-port.js';
import { pingRedis } from '../helpers/redis-server.js';

describe('findRedis', () => {
  it('uses REDIS_URL when it answers', async () => {
    const url = inject('redisUrl');
    await expect(findRedis({ envUrl: url, defaultUrl: 'redis://127.0.0.1:1' })).resolves.toEqual({ url });
  });

  it('fails with a message naming REDIS_URL when it does not answer', async () => {
    const port = await getFreePort();
    await expect(findRedis({ envUrl: `redis://127.0.0.1:${port}` })).rejects.toThrow(/REDIS_URL=.* does not answer PING/);
  });

  it('starts a private redis-server when the default URL does not answer, and stops it', async () => {
    const closed = `redis://127.0.0.1:${await getFreePort()}`;
    const found = await findRedis({ defaultUrl: closed });
    try {
      expect(found.started).toBeDefined();
      expect(found.url).not.toBe(closed);
      expect(await pingRedis(found.url)).toBe(true);
    } finally {
      await found.started?.stop();
    }
    expect(await pingRedis(found.url)).toBe(false);
  });
});
