/**
 * Opt-in guard against Redis' asynchronous replication (`REDIS_WAIT_REPLICAS`): a script's result is
 * used only once `WAIT` confirms the replicas hold the write, otherwise 503, so no 200 can be lost to a failover.
 */
import { checkInteger } from '@session-resume-api/runtime/options-error';
import type { RedisConnection } from './create-redis-connection.js';

/** Default longest wait for the replicas' acknowledgement of a script's writes, in ms. */
export const DEFAULT_REPLICA_ACK_TIMEOUT_MS = 500;

/** Options of `withReplicaAcks`. */
export interface ReplicaAckOptions {
  /** Replicas that must acknowledge each script's writes (at least 1). */
  replicas: number;
  /**
   * Longest wait, in ms; keep it under the command timeout.
   * @defaultValue {@link DEFAULT_REPLICA_ACK_TIMEOUT_MS} (500)
   */
  timeoutMs?: number;
}

/** Thrown when fewer replicas than required acknowledged a script's writes in time. */
export class ReplicaAckError extends Error {
  override name = 'ReplicaAckError';
}

type Exec = [Error | null, unknown][] | null;

/**
 * Sends `eval` and `evalsha` pipelined with `WAIT` (a pipeline goes to its keys' node, so WAIT runs
 * where the script ran); other commands pass through. The caller still owns the original connection.
 * @example const store = createRedisSessionStore({ client: withReplicaAcks(redis, { replicas: 1 }) });
 */
export function withReplicaAcks<T extends RedisConnection>(client: T, options: ReplicaAckOptions): T {
  checkInteger('withReplicaAcks: replicas', options.replicas, { min: 1 });
  const timeoutMs = options.timeoutMs ?? DEFAULT_REPLICA_ACK_TIMEOUT_MS;
  const acked =
    (method: 'eval' | 'evalsha') =>
    async (...args: (string | number | Buffer)[]): Promise<unknown> => {
      const pipeline = client.pipeline();
      (pipeline[method] as (...a: unknown[]) => unknown)(...args);
      pipeline.call('WAIT', String(options.replicas), String(timeoutMs));
      const results = (await pipeline.exec()) as Exec;
      const [scriptError, value] = results?.[0] ?? [new Error('no answer'), undefined];
      if (scriptError) throw scriptError;
      const [waitError, count] = results?.[1] ?? [new Error('no answer to WAIT'), 0];
      if (waitError) throw waitError;
      if (Number(count) < options.replicas) {
        throw new ReplicaAckError(`only ${Number(count)} of ${options.replicas} Redis replicas acknowledged the write within ${timeoutMs} ms`);
      }
      return value;
    };
  const wrapped = { eval: acked('eval'), evalsha: acked('evalsha') };
  return new Proxy(client, {
    get(target, property) {
      if (property === 'eval' || property === 'evalsha') return wrapped[property];
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
