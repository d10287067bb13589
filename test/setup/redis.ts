/**
 * Vitest global setup: finds the Redis the suites use and provides its URL as `redisUrl`.
 * Order: REDIS_URL, else 127.0.0.1:6379 if it answers, else a private `redis-server` on a
 * free port (stopped after the run), else a failure that says how to get Redis. No suite
 * that needs Redis is skipped silently.
 */
import type { TestProject } from 'vitest/node';
import { pingRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

const DEFAULT_URL = 'redis://127.0.0.1:6379';

let started: RedisServer | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const fromEnv = process.env.REDIS_URL;
  let url: string;
  if (fromEnv) {
    if (!(await pingRedis(fromEnv))) {
      throw new Error(`REDIS_URL=${fromEnv} does not answer PING: start that Redis or unset REDIS_URL.`);
    }
    url = fromEnv;
  } else if (await pingRedis(DEFAULT_URL)) {
    url = DEFAULT_URL;
  } else {
    try {
      started = await startRedisServer();
    } catch (cause) {
      throw new Error(
        'The tests need Redis: set REDIS_URL, run one on 127.0.0.1:6379, or install redis-server ' +
          '(Debian: apt-get install -y redis-server) so the tests can start their own.',
        { cause },
      );
    }
    url = started.url;
  }
  project.provide('redisUrl', url);
  return async () => {
    await started?.stop();
  };
}
