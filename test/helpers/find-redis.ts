/**
 * Finds the Redis the suites use (issue #2): `envUrl` (REDIS_URL) if set, else `defaultUrl`
 * (127.0.0.1:6379) if it answers, else a private `redis-server` on a free port, else an
 * error that says how to get Redis.
 */
import { pingRedis, startRedisServer, type RedisServer } from './redis-server.js';

/** Where Redis was found; `started` is set when this call started a private server (stop it after). */
export interface FoundRedis {
  url: string;
  started?: RedisServer;
}

/** Options: `envUrl` is REDIS_URL as given; `defaultUrl` defaults to redis://127.0.0.1:6379. */
export async function findRedis({
  envUrl,
  defaultUrl = 'redis://127.0.0.1:6379',
}: { envUrl?: string; defaultUrl?: string } = {}): Promise<FoundRedis> {
  if (envUrl) {
    if (!(await pingRedis(envUrl))) {
      throw new Error(`REDIS_URL=${envUrl} does not answer PING: start that Redis or unset REDIS_URL.`);
    }
    return { url: envUrl };
  }
  if (await pingRedis(defaultUrl)) return { url: defaultUrl };
  try {
    const started = await startRedisServer();
    return { url: started.url, started };
  } catch (cause) {
    throw new Error(
      `The tests need Redis and none answers at ${defaultUrl}: set REDIS_URL, start redis-server there, ` +
        'or install it (Debian: apt-get install -y redis-server) so the tests can start their own.',
      { cause },
    );
  }
}
