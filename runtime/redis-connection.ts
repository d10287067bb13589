/** The one Redis connection factory; ioredis is passed in, never imported, so the client keeps it an optional peer. */
import type { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import { parseHostPort } from './host-port.js';
import { OptionsError } from './options-error.js';

/** A single-node client or a cluster client. */
export type RedisConnection = Redis | Cluster;

/** The two ioredis constructors the factory needs. */
export interface RedisConstructors {
  Redis: typeof Redis;
  Cluster: typeof Cluster;
}

/** One URL, Cluster seed nodes (`host:port`, any subset), or a client to duplicate. */
export type RedisTarget = { url: string } | { clusterNodes: readonly string[] } | { client: RedisConnection };

/** Deadline of one command without an answer. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 1000;
/** Longest wait between reconnection attempts. */
export const DEFAULT_MAX_RECONNECT_DELAY_MS = 1000;
/** A cluster's slot-map refresh interval. */
export const DEFAULT_SLOTS_REFRESH_INTERVAL_MS = 1000;
/** How long opening one connection may take before ioredis retries it, in ms. */
const CONNECT_TIMEOUT_MS = 2000;

/** Options of every connection, whatever its role: those `createRedisConnection` takes. */
export interface RedisConnectionOptions {
  /**
   * `request` role: a command without an answer fails after this many ms (outcome unknown).
   * @defaultValue {@link DEFAULT_COMMAND_TIMEOUT_MS} (1000)
   */
  commandTimeoutMs?: number;
  /**
   * Longest wait between reconnection attempts (ms); reconnection never stops.
   * @defaultValue {@link DEFAULT_MAX_RECONNECT_DELAY_MS} (1000)
   */
  maxReconnectDelayMs?: number;
  /**
   * Cluster only: slot map refresh interval (ms), about how soon a failover is noticed.
   * @defaultValue {@link DEFAULT_SLOTS_REFRESH_INTERVAL_MS} (1000)
   */
  slotsRefreshIntervalMs?: number;
  /**
   * Called on connection errors (ioredis needs a listener), node errors included.
   * @defaultValue none: they are ignored (the failing commands report them)
   */
  onError?: (error: Error) => void;
}

/** Options of `openRedisConnection`: those of every connection, and its role. */
export interface OpenRedisConnectionOptions extends RedisConnectionOptions {
  /**
   * `request`: fails fast, and a command whose connection closed under it fails as "unknown" rather
   * than being re-sent. `blocking`: BullMQ's workers, which wait for Redis instead.
   * @defaultValue `'request'`
   */
  role?: 'request' | 'blocking';
}

/**
 * Opens a connection. On a cluster MOVED, ASK, TRYAGAIN and CLUSTERDOWN are retried (Redis did not run
 * the command); a `request` command whose connection closed is not (`retryDelayOnFailover: 0`).
 * @example const redis = openRedisConnection({ Redis, Cluster }, { clusterNodes: ['10.0.0.5:7000'] });
 */
export function openRedisConnection(ioredis: RedisConstructors, target: RedisTarget, options: OpenRedisConnectionOptions = {}): RedisConnection {
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
  const connection = open(
    ioredis,
    target,
    node,
    {
      ...offline,
      clusterRetryStrategy: retry,
      retryDelayOnFailover: blocking ? 100 : 0,
      retryDelayOnClusterDown: 100,
      retryDelayOnTryAgain: 100,
      maxRedirections: 16,
      slotsRefreshTimeout: 1000,
      slotsRefreshInterval: options.slotsRefreshIntervalMs ?? DEFAULT_SLOTS_REFRESH_INTERVAL_MS,
    },
    { ...offline, retryStrategy: retry },
  );
  // ioredis needs a listener; a failing command reports the error to its own caller.
  const onError = options.onError ?? (() => undefined);
  connection.on('error', onError);
  if (isCluster(connection)) connection.on('node error', (error: Error) => onError(error));
  return connection;
}

function open(ioredis: RedisConstructors, target: RedisTarget, node: RedisOptions, cluster: ClusterOptions, single: RedisOptions): RedisConnection {
  if ('client' in target) {
    const { client } = target;
    if (isCluster(client)) return client.duplicate([], { ...cluster, redisOptions: { ...client.options.redisOptions, ...node } });
    return client.duplicate({ ...node, ...single });
  }
  if ('url' in target) return new ioredis.Redis(target.url, { ...node, ...single });
  if (target.clusterNodes.length === 0) throw new OptionsError('A Redis Cluster needs at least one seed node (host:port).', { option: 'clusterNodes' });
  return new ioredis.Cluster(
    target.clusterNodes.map((seed) => parseSeed(seed)),
    { ...cluster, redisOptions: node },
  );
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

/** Opens every primary of a ready cluster: without an offline queue, a command sent while one is still opening fails. */
export async function openPrimaries(connection: RedisConnection): Promise<void> {
  if (isCluster(connection)) await Promise.all(connection.nodes('master').map((node) => node.ping()));
}
