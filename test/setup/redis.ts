/**
 * Vitest global setup: finds the Redis the suites use (test/helpers/find-redis.ts) and
 * provides its URL as `redisUrl`. No suite that needs Redis is skipped silently.
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
