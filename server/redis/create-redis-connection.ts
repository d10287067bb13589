/**
 * One factory for the Redis connection every Redis-backed part shares: a single node
 * (`REDIS_URL`) gives an ioredis `Redis`, seed nodes (`REDIS_CLUSTER_NODES`) an ioredis
 * `Cluster`. The code on top is the same for both: keys one script touches share a hash tag.
 */
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { parseHostPort } from '@session-resume-api/runtime/host-port';
import { Cluster, Redis } from 'ioredis';
import type { RedisConnection } from '@session-resume-api/runtime/redis-connection';
import { authFailure, redisAuthCode } from './redis-auth-failure.js';

export type { RedisConnection } from '@session-resume-api/runtime/redis-connection';

/** Where Redis is: one URL, or cluster seed nodes (`host:port`, any subset of the cluster). */
export type RedisTarget = { url: string } | { clusterNodes: readonly string[] };

/** Options of `createRedisConnection`. */
export interface RedisConnectionOptions {
  /**
   * A command without an answer fails after this many ms: the request becomes 503 ("unknown", not "not applied").
   * @defaultValue 1000
   */
  commandTimeoutMs?: number;
  /**
   * Longest wait between reconnection attempts, in ms; reconnection never stops.
   * @defaultValue 1000
   */
  maxReconnectDelayMs?: number;
  /**
   * Cluster only: how often the slot map is refreshed, in ms, so a failover is noticed within about this long.
   * @defaultValue 1000
   */
  slotsRefreshIntervalMs?: number;
  /**
   * Called on connection errors (ioredis needs a listener).
   * @defaultValue ignore them
   */
  onError?: (error: Error) => void;
}

/**
 * Creates the connection. Both kinds reject commands at once while disconnected (no offline
 * queue) and keep reconnecting forever. On a cluster, MOVED, ASK, TRYAGAIN and CLUSTERDOWN
 * are retried (Redis did not run the command), but a command whose connection closed under
 * it is not (`retryDelayOnFailover: 0`): it may have run, so it fails as "unknown" instead of
 * running twice; nodes never re-send unanswered commands after a reconnect either.
 *
 * @example
 * const redis = createRedisConnection({ clusterNodes: ['10.0.0.5:7000', '10.0.0.6:7000'] });
 * await waitUntilConnected(redis);
 */
export function createRedisConnection(target: RedisTarget, options: RedisConnectionOptions = {}): RedisConnection {
  const maxDelay = options.maxReconnectDelayMs ?? 1000;
  // One set of options for every node, single or in a cluster. A command whose connection
  // closed before its answer may have run: it is neither retried after a reconnect
  // (`maxRetriesPerRequest: 0`) nor re-sent (`autoResendUnfulfilledCommands: false`), so it
  // fails as "unknown" (503) rather than running twice; with no offline queue, a command sent
  // while disconnected fails at once.
  const node = {
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: 2000,
  } as const;
  const retry = (times: number) => Math.min(times * 100, maxDelay);
  if ('url' in target) {
    const client = new Redis(target.url, { ...node, enableOfflineQueue: false, retryStrategy: retry });
    client.on('error', options.onError ?? (() => undefined));
    return client;
  }
  if (target.clusterNodes.length === 0) throw new OptionsError('A Redis Cluster needs at least one seed node (host:port).', { option: 'clusterNodes' });
  const cluster = new Cluster(target.clusterNodes.map(parseNode), {
    enableOfflineQueue: false,
    clusterRetryStrategy: retry,
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    maxRedirections: 16,
    slotsRefreshTimeout: 1000,
    slotsRefreshInterval: options.slotsRefreshIntervalMs ?? 1000,
    redisOptions: node,
  });
  seedsOf.set(cluster, [...target.clusterNodes]);
  cluster.on('error', options.onError ?? (() => undefined));
  cluster.on('node error', (error: Error) => options.onError?.(error));
  return cluster;
}

const seedsOf = new WeakMap<Cluster, string[]>();

/**
 * A connection for BullMQ (the queue of Redis delivery) of the same kind as the target: BullMQ
 * needs `maxRetriesPerRequest: null` on its blocking connections and, on a cluster, a queue
 * prefix in one hash tag (Redis delivery uses `<prefix>{outbox}`, the tag of the outbox's intents).
 *
 * @example
 * const connection = createQueueConnection({ clusterNodes: ['10.0.0.5:7000'] });
 */
export function createQueueConnection(target: RedisTarget): RedisConnection {
  if ('url' in target) return new Redis(target.url, { maxRetriesPerRequest: null });
  return new Cluster(target.clusterNodes.map(parseNode), { redisOptions: { maxRetriesPerRequest: null } });
}

/** `host:port` (IPv6 in brackets) as an ioredis node. */
function parseNode(address: string): { host: string; port: number } {
  const node = parseHostPort(address.trim());
  if (!node) throw new OptionsError(`Redis Cluster seed "${address}" must be host:port.`, { option: 'clusterNodes' });
  return node;
}

/** True for an ioredis `Cluster`. */
export function isCluster(connection: RedisConnection): connection is Cluster {
  return (connection as Cluster).isCluster === true;
}

/**
 * Resolves when the connection is ready (a cluster: slot map loaded and every primary
 * connected); rejects after `timeoutMs` (default 10 000 ms) with a message naming where it
 * looked and what to fix, or at once with a `RedisAuthError` when Redis refuses the
 * credentials (WRONGPASS, NOAUTH, NOPERM).
 */
export async function waitUntilConnected(connection: RedisConnection, timeoutMs = 10_000): Promise<void> {
  await waitForReady(connection, timeoutMs);
  // ioredis connects to each node on its first command, and without an offline queue a
  // command sent while that connection is still opening fails: open them all now.
  if (isCluster(connection)) await Promise.all(connection.nodes('master').map((node) => node.ping()));
}

async function waitForReady(connection: RedisConnection, timeoutMs: number): Promise<void> {
  if (connection.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      connection.off('ready', onReady);
      connection.off('error', onError);
      connection.off('node error', onError);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`Redis ${describe(connection)} did not answer within ${timeoutMs} ms: ${hint(connection)}`));
    }, timeoutMs);
    const onReady = () => {
      done();
      resolve();
    };
    // A refused login does not heal by retrying: report it now, not after the timeout.
    const onError = (error: Error) => {
      const code = redisAuthCode(error);
      if (code === undefined) return;
      done();
      reject(authFailure(error, code, describe(connection), isCluster(connection) ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL'));
    };
    connection.once('ready', onReady);
    connection.on('error', onError);
    connection.on('node error', onError);
  });
}

function describe(connection: RedisConnection): string {
  if (isCluster(connection)) {
    const seeds = seedsOf.get(connection) ?? [];
    return `Cluster (seeds ${seeds.join(', ')})`;
  }
  return `at ${connection.options.host ?? '?'}:${connection.options.port ?? '?'}`;
}

function hint(connection: RedisConnection): string {
  return isCluster(connection)
    ? 'start it, fix REDIS_CLUSTER_NODES, and check that every slot is served (cluster_state:ok).'
    : 'start it or fix REDIS_URL.';
}
