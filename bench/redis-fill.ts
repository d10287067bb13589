/**
 * Fills the bench's private Redis with running sessions `bench_0` … `bench_<n-1>` in the
 * reference server's key layout (one hash per session), pipelined, so the growth cases start
 * in seconds. Idempotent: sessions already there are rewritten with the same fields.
 */
import { Redis } from 'ioredis';
import { BENCH_REDIS_PREFIX } from './targets.js';

const BATCH = 10_000;

/** Makes sure sessions 0 … n-1 exist; resolves with the seconds it took. */
export async function fillRedisSessions(redisUrl: string, n: number): Promise<number> {
  const started = performance.now();
  const client = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 });
  try {
    const at = new Date().toISOString();
    for (let from = 0; from < n; from += BATCH) {
      const pipeline = client.pipeline();
      for (let i = from; i < Math.min(n, from + BATCH); i++) {
        pipeline.hset(`${BENCH_REDIS_PREFIX}session:bench_${i}`, 'status', 'running', 'updatedAt', at);
      }
      await pipeline.exec();
    }
  } finally {
    await client.quit();
  }
  return (performance.now() - started) / 1000;
}
