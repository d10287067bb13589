/**
 * Vitest global setup: the Redis the suites use (test/helpers/find-redis.ts): REDIS_URL, else a
 * private redis-server on a free port, stopped after the run. Its URL is provided as `redisUrl`.
 * No suite that needs Redis is skipped silently.
 */
import type { TestProject } from 'vitest/node';
import { findRedis } from '../helpers/find-redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const found = await findRedis({ envUrl: process.env.REDIS_URL });
  project.provide('redisUrl', found.url);
  return async () => {
    await found.started?.stop();
  };
}
