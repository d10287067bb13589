/**
 * Where the Redis store connects: a redis:// URL, an ioredis client (a `Redis` or a
 * `Cluster`, duplicated, never closed by the store) or Redis Cluster seed nodes. One code path
 * for a single node and a cluster: every key of the store carries one hash tag, so the same
 * scripts run on both.
 */
import type { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import { parseHostPort } from '@session-resume-api/runtime/host-port';
import { checkOption } from '@session-resume-api/runtime/options-error';
import type { RedisConnection } from '@session-resume-api/runtime/redis-connection';
import type { RedisLibraries } from './libraries.js';

export type { RedisConnection } from '@session-resume-api/runtime/redis-connection';

/** The three ways to say where Redis is; exactly one is given. */
export interface ConnectionSource {
  url?: string;
  client?: RedisConnection;
  clusterNodes?: readonly string[];
}

/** `host:port` → ioredis startup node; throws OptionsError for anything else. */
export function parseSeed(seed: string, where: string): { host: string; port: number } {
  const node = parseHostPort(seed);
  checkOption(node, `${where}: clusterNodes entries must be "host:port" (got ${JSON.stringify(seed)})`, 'clusterNodes');
  return node;
}

/** Checks `source` (exactly one of url, client, clusterNodes) and returns a connection factory. */
export function createConnector(source: ConnectionSource, libs: Pick<RedisLibraries, 'Redis' | 'Cluster'>, where: string) {
  const { url, client, clusterNodes } = source;
  const given = [url, client, clusterNodes].filter((v) => v !== undefined).length;
  checkOption(given === 1, `${where}: give exactly one of url (a redis:// URL), client (an ioredis Redis or Cluster) or clusterNodes (["host:port", ...])`);
  checkOption(url === undefined || (typeof url === 'string' && /^rediss?:\/\//.test(url)), `${where}: url must start with redis:// or rediss:// (got ${url})`);
  checkOption(
    client === undefined || (typeof client === 'object' && client !== null && typeof (client as Redis).duplicate === 'function'),
    `${where}: client must be an ioredis Redis or Cluster instance`,
  );
  checkOption(clusterNodes === undefined || (Array.isArray(clusterNodes) && clusterNodes.length > 0), `${where}: clusterNodes must be a non-empty list of "host:port"`);
  const seeds = clusterNodes?.map((s) => parseSeed(s, where));

  /**
   * A new connection with `node` options (per node on a cluster) and `cluster`-wide ones.
   * The offline queue is a connection-wide setting on both kinds of client.
   */
  return (node: RedisOptions, shared: { enableOfflineQueue?: boolean } = {}): RedisConnection => {
    if (client?.isCluster) {
      const cluster = client as Cluster;
      return cluster.duplicate([], { ...shared, redisOptions: { ...cluster.options.redisOptions, ...node } } satisfies ClusterOptions);
    }
    if (client) return (client as Redis).duplicate({ ...node, ...shared });
    if (seeds) return new libs.Cluster(seeds, { ...shared, redisOptions: node });
    return new libs.Redis(url!, { lazyConnect: false, ...node, ...shared });
  };
}
