/**
 * The server's Redis connections, single node (`REDIS_URL`) or Cluster (`REDIS_CLUSTER_NODES`), from
 * the factory both packages share (runtime/redis-connection.ts).
 */
import { Cluster, Redis } from 'ioredis';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { isCluster, openPrimaries, openRedisConnection, type RedisConnection, type RedisConnectionOptions } from '@session-resume-api/runtime/redis-connection';
import { authFailure, redisAuthCode } from './redis-auth-failure.js';

export { isCluster } from '@session-resume-api/runtime/redis-connection';
export type { RedisConnection, RedisConnectionOptions } from '@session-resume-api/runtime/redis-connection';

/**
 * Where Redis is: one URL, or cluster seed nodes (`host:port`, any subset of the cluster); not
 * both (the type says so, and `createRedisConnection` refuses both with `OptionsError`).
 */
export type RedisTarget = { url: string; clusterNodes?: never } | { clusterNodes: readonly string[]; url?: never };

/**
 * A request-path connection: commands fail at once while disconnected and after `commandTimeoutMs`
 * while Redis hangs; one whose connection closed under it fails as "unknown" rather than running twice.
 * @example
 * const redis = createRedisConnection({ clusterNodes: ['10.0.0.5:7000', '10.0.0.6:7000'] });
 * await waitUntilConnected(redis);
 */
export function createRedisConnection(target: RedisTarget, options: RedisConnectionOptions = {}): RedisConnection {
  // The types rule this out; a JavaScript caller still gets the rule.
  if (target?.url !== undefined && target.clusterNodes !== undefined) {
    throw new OptionsError('createRedisConnection: give url (one Redis) or clusterNodes (a Redis Cluster), not both.', { option: 'clusterNodes' });
  }
  const connection = openRedisConnection({ Redis, Cluster }, target, { ...options, role: 'request' });
  if (isCluster(connection) && target.clusterNodes !== undefined) seedsOf.set(connection, [...target.clusterNodes]);
  return connection;
}

const seedsOf = new WeakMap<Cluster, string[]>();

/**
 * A BullMQ connection of the target's kind (`maxRetriesPerRequest: null` on blocking connections).
 * @example const connection = createQueueConnection({ clusterNodes: ['10.0.0.5:7000'] });
 */
export function createQueueConnection(target: RedisTarget): RedisConnection {
  return openRedisConnection({ Redis, Cluster }, target, { role: 'blocking' });
}

/**
 * Resolves when ready (a cluster: slot map loaded, every primary connected); rejects after
 * `timeoutMs` naming where it looked and what to fix, or at once with `RedisAuthError` when Redis
 * refuses the credentials.
 */
export async function waitUntilConnected(connection: RedisConnection, timeoutMs = 10_000): Promise<void> {
  await waitForReady(connection, timeoutMs);
  await openPrimaries(connection);
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
    const variable = isCluster(connection) ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL';
    // A refused login or an unknown host does not heal by retrying: report it now.
    const onError = (error: Error) => {
      const code = redisAuthCode(error);
      if (code !== undefined) {
        done();
        reject(authFailure(error, code, describe(connection), variable));
      } else if ((error as NodeJS.ErrnoException).code === 'ENOTFOUND') {
        done();
        const host = (error as { hostname?: string }).hostname ?? '?';
        reject(new Error(`Redis ${describe(connection)}: the host name ${host} does not resolve (ENOTFOUND): fix the host in ${variable}.`, { cause: error }));
      }
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
  return isCluster(connection) ? 'start it, fix REDIS_CLUSTER_NODES, and check that every slot is served (cluster_state:ok).' : 'start it or fix REDIS_URL.';
}
