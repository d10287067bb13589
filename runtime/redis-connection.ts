/**
 * The one Redis connection factory both sides use: a single node (a URL), seed nodes of a
 * Cluster, or a caller's ioredis client duplicated. Code on top treats a node and a cluster
 * alike, since the keys one script touches share a hash tag. ioredis is passed in, never
 * imported here, so the client package keeps it an optional peer dependency.
 */
import type { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import { parseHostPort } from './host-port.js';
import { OptionsError } from './options-error.js';

/** A single-node client or a cluster client. */
export type RedisConnection = Redis | Cluster;

/** The two ioredis constructors the factory needs (from `import('ioredis')` or a static import). */
export interface RedisConstructors {
  Redis: typeof Redis;
  Cluster: typeof Cluster;
}

/** Where Redis is: one URL, Cluster seed nodes (`host:port`, any subset of the cluster), or a client to duplicate. */
export type RedisTarget = { url: string } | { clusterNodes: readonly string[] } | { client: RedisConnection };

/** Default deadline of one command without an answer, in ms. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 1000;
/** Default longest wait between reconnection attempts, in ms. */
export const DEFAULT_MAX_RECONNECT_DELAY_MS = 1000;
/** Default interval of a cluster's slot-map refresh, in ms. */
export const DEFAULT_SLOTS_REFRESH_INTERVAL_MS = 1000;
/** How long opening one connection may take before ioredis retries it, in ms. */
const CONNECT_TIMEOUT_MS = 2000;

/** Options of `openRedisConnection`. */
export interface RedisConnectionOptions {
  /**
   * `request`: fails fast (no offline queue, a command deadline, never retried or re-sent after
   * its connection closed: it may have run, so it fails as "unknown"). `blocking`: for BullMQ's
   * workers, which need `maxRetriesPerRequest: null` and wait for Redis instead.
   * @defaultValue `'request'`
   */
  role?: 'request' | 'blocking';
  /**
   * `request` role: a command without an answer fails after this many ms (its outcome is unknown, not "not applied").
   * @defaultValue {@link DEFAULT_COMMAND_TIMEOUT_MS} (1000)
   */
  commandTimeoutMs?: number;
  /**
   * Longest wait between reconnection attempts, in ms; reconnection never stops.
   * @defaultValue {@link DEFAULT_MAX_RECONNECT_DELAY_MS} (1000)
   */
  maxReconnectDelayMs?: number;
  /**
   * Cluster only: how often the slot map is refreshed, in ms, so a failover is noticed within about this long.
   * @defaultValue {@link DEFAULT_SLOTS_REFRESH_INTERVAL_MS} (1000)
   */
  slotsRefreshIntervalMs?: number;
  /**
   * Called on connection errors (ioredis needs a listener), a cluster's node errors included.
   * @defaultValue none: they are ignored (the failing commands report them)
   */
  onError?: (error: Error) => void;
}

/**
 * Opens a connection. `request` connections reject commands at once while disconnected (no
 * offline queue) and keep reconnecting forever; on a cluster MOVED, ASK, TRYAGAIN and
 * CLUSTERDOWN are retried (Redis did not run the command) but a command whose connection
 * closed under it is not (`retryDelayOnFailover: 0`), nor re-sent after a reconnect: it may
 * have run, so it fails as "unknown" instead of running twice.
 *
 * @example
 * import { Cluster, Redis } from 'ioredis';
 * const redis = openRedisConnection({ Redis, Cluster }, { clusterNodes: ['10.0.0.5:7000'] });
 */
export function openRedisConnection(ioredis: RedisConstructors, target: RedisTarget, options: RedisConnectionOptions = {}): RedisConnection {
  const maxDelay = options.maxReconnectDelayMs ?? DEFAULT_MAX_RECONNECT_DELAY_MS;
  const retry = (times: number) => Math.min(times * 100, maxDelay);
  const blocking = options.role === 'blocking';
  const node: RedisOptions = blocking
    ? { maxRetriesPerRequest: null, connectTimeout: CONNECT_TIMEOUT_MS }
    : {
        autoResendUnfulfilledCommands: false,
        maxRetriesPerRequest: 0,
        commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
        connectTimeout: CONNECT_TIMEOUT_MS,
      };
  const offline = { enableOfflineQueue: blocking };
  const connection = open(ioredis, target, node, {
    ...offline,
    clusterRetryStrategy: retry,
    retryDelayOnFailover: blocking ? 100 : 0,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    maxRedirections: 16,
    slotsRefreshTimeout: 1000,
    slotsRefreshInterval: options.slotsRefreshIntervalMs ?? DEFAULT_SLOTS_REFRESH_INTERVAL_MS,
  }, { ...offline, retryStrategy: retry });
  const onError = options.onError ?? (() => undefined);
  connection.on('error', onError);
  if (isCluster(connection)) connection.on('node error', (error: Error) => onError(error));
  return connection;
}

/** The connection itself: per-node options, cluster-wide ones, single-node-wide ones. */
function open(ioredis: RedisConstructors, target: RedisTarget, node: RedisOptions, cluster: ClusterOptions, single: RedisOptions): RedisConnection {
  if ('client' in target) {
    const { client } = target;
    if (isCluster(client)) return client.duplicate([], { ...cluster, redisOptions: { ...client.options.redisOptions, ...node } });
    return client.duplicate({ ...node, ...single });
  }
  if ('url' in target) return new ioredis.Redis(target.url, { ...node, ...single });
  if (target.clusterNodes.length === 0) throw new OptionsError('A Redis Cluster needs at least one seed node (host:port).', { option: 'clusterNodes' });
  return new ioredis.Cluster(target.clusterNodes.map((seed) => parseSeed(seed)), { ...cluster, redisOptions: node });
}

/** `host:port` (IPv6 in brackets) as an ioredis node; throws `OptionsError` naming `clusterNodes` for anything else. */
export function parseSeed(seed: string, where = 'Redis Cluster'): { host: string; port: number } {
  const parsed = typeof seed === 'string' ? parseHostPort(seed.trim()) : undefined;
  if (!parsed) throw new OptionsError(`${where}: seed node ${JSON.stringify(seed)} must be host:port.`, { option: 'clusterNodes' });
  return parsed;
}

/** True for an ioredis `Cluster`. */
export function isCluster(connection: RedisConnection): connection is Cluster {
  return (connection as Cluster).isCluster === true;
}

/**
 * Opens the connection to every primary of a cluster (nothing to do on a single node): ioredis
 * opens them on their first command, and without an offline queue a command sent while one
 * is still opening fails. Call it once the connection is ready.
 */
export async function openPrimaries(connection: RedisConnection): Promise<void> {
  if (isCluster(connection)) await Promise.all(connection.nodes('master').map((node) => node.ping()));
}
