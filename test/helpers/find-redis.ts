/**
 * Finds the Redis the suites use: `envUrl` (REDIS_URL) if set, else a private `redis-server`
 * started on a free port, else an error that says how to get one. Never whatever answers on
 * 127.0.0.1:6379: on a shared machine that Redis, its data and its configuration are someone else's.
 */
import { pingRedis, startRedisServer, type RedisServer } from './redis-server.js';

/** Where Redis was found; `started` is set when this call started a private server (stop it after). */
export interface FoundRedis {
  url: string;
  started?: RedisServer;
}

/** Options: `envUrl` is REDIS_URL as given (unset or empty: a private server is started). */
export async function findRedis({ envUrl }: { envUrl?: string } = {}): Promise<FoundRedis> {
  if (envUrl) {
    if (!(await pingRedis(envUrl))) {
      throw new Error(`REDIS_URL=${envUrl} does not answer PING: start that Redis or unset REDIS_URL.`);
    }
    return { url: envUrl };
  }
  try {
    const started = await startRedisServer();
    return { url: started.url, started };
  } catch (cause) {
    throw new Error(
      'The tests start their own redis-server on a free port and could not: install it ' +
        '(Debian: apt-get install -y redis-server), or set REDIS_URL to a Redis the tests may write to.',
      { cause },
    );
  }
}
