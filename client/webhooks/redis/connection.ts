/**
 * Where the Redis store connects: a redis:// URL, an ioredis client (a `Redis` or a
 * `Cluster`, duplicated, never closed by the store) or Redis Cluster seed nodes. The
 * connections themselves come from the one factory both packages use
 * (runtime/redis-connection.ts), with ioredis loaded on demand (an optional peer dependency).
 */
import { checkOption } from '@session-resume-api/runtime/options-error';
import {
  openRedisConnection,
  parseSeed,
  type RedisConnection,
  type OpenRedisConnectionOptions,
  type RedisConstructors,
  type RedisTarget,
} from '@session-resume-api/runtime/redis-connection';

export type { RedisConnection } from '@session-resume-api/runtime/redis-connection';

/** The three ways to say where Redis is; exactly one is given. */
export interface ConnectionSource {
  url?: string;
  client?: RedisConnection;
  clusterNodes?: readonly string[];
}

/** Opens one more connection to the checked target, for one role. */
export type Connector = (options: OpenRedisConnectionOptions) => RedisConnection;

/** Checks `source` (exactly one of url, client, clusterNodes) and returns a connection factory. */
export function createConnector(source: ConnectionSource, ioredis: RedisConstructors, where: string): Connector {
  const target = checkSource(source, where);
  return (options) => openRedisConnection(ioredis, target, options);
}

function checkSource({ url, client, clusterNodes }: ConnectionSource, where: string): RedisTarget {
  const given = [url, client, clusterNodes].filter((v) => v !== undefined).length;
  checkOption(given === 1, `${where}: give exactly one of url (a redis:// URL), client (an ioredis Redis or Cluster) or clusterNodes (["host:port", ...])`);
  if (url !== undefined) {
    checkOption(typeof url === 'string' && /^rediss?:\/\//.test(url), `${where}: url must start with redis:// or rediss:// (got ${url})`, 'url');
    return { url };
  }
  if (client !== undefined) {
    checkOption(
      typeof client === 'object' && client !== null && typeof client.duplicate === 'function',
      `${where}: client must be an ioredis Redis or Cluster instance`,
      'client',
    );
    return { client };
  }
  checkOption(Array.isArray(clusterNodes) && clusterNodes.length > 0, `${where}: clusterNodes must be a non-empty list of "host:port"`, 'clusterNodes');
  for (const seed of clusterNodes) parseSeed(seed, where);
  return { clusterNodes };
}
