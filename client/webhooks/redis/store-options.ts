/** Options of `createRedisEventStore`, their defaults and their check. */
import { checkInteger, checkOption } from '@session-resume-api/runtime/options-error';
import { createConnector, type ConnectionSource, type RedisConnection } from './connection.js';
import type { RedisLibraries } from './libraries.js';

/** Default key prefix shared by every instance of one receiver; keys carry it as the hash tag `{prefix}`. */
export const DEFAULT_RECEIVER_KEY_PREFIX = 'session-resume-api';
/** Default BullMQ queue name. */
export const DEFAULT_QUEUE_NAME = 'webhook-events';
/** Default handler runs at the same time per instance. */
export const DEFAULT_REDIS_CONCURRENCY = 1;
/** Default most events in one job (the first deliveries of one record call); a job holds their payloads plus about 120 bytes each. */
export const DEFAULT_MAX_EVENTS_PER_JOB = 50;
/** Default ms from a delivery to its answer's deadline: not recorded by then, it is answered 503 and never recorded. */
export const DEFAULT_RECORD_TIMEOUT_MS = 2000;
/** Default ms a processing lock lasts without renewal. */
export const DEFAULT_LOCK_DURATION_MS = 30_000;
/** Default ms between checks for work a dead instance left (stalled jobs, inbox). */
export const DEFAULT_STALLED_INTERVAL_MS = 30_000;
/** Default times a job may be found stalled before it is dead-lettered. */
export const DEFAULT_MAX_STALLED_COUNT = 5;
/**
 * Options of `createRedisEventStore`: where Redis is, as exactly one of `url`, `client` or
 * `clusterNodes` (a second one does not type-check, and is refused with `OptionsError` at run
 * time), and the store's settings.
 */
export type RedisEventStoreOptions = RedisEventStoreBaseOptions & (RedisUrlSource | RedisClientSource | RedisClusterSource);

/** A single Redis node by URL. */
export interface RedisUrlSource {
  /** Redis URL of a single node, e.g. redis://127.0.0.1:6379. */
  url: string;
  /** Not with another source. */
  client?: never;
  /** Not with another source. */
  clusterNodes?: never;
}

/** An ioredis client to copy connection settings from. */
export interface RedisClientSource {
  /** An ioredis `Redis` or `Cluster` to copy connection settings from (duplicated; never closed by the store). */
  client: RedisConnection;
  /** Not with another source. */
  url?: never;
  /** Not with another source. */
  clusterNodes?: never;
}

/** A Redis Cluster by its seed nodes. */
export interface RedisClusterSource {
  /** Redis Cluster seed nodes, `host:port` each. */
  clusterNodes: readonly string[];
  /** Not with another source. */
  url?: never;
  /** Not with another source. */
  client?: never;
}

/** The options of `createRedisEventStore` whatever Redis it connects to. */
export interface RedisEventStoreBaseOptions {
  /**
   * Key prefix, the hash tag of every key; share it between instances.
   * @defaultValue {@link DEFAULT_RECEIVER_KEY_PREFIX} (`'session-resume-api'`)
   */
  prefix?: string;
  /**
   * BullMQ queue name.
   * @defaultValue {@link DEFAULT_QUEUE_NAME} (`'webhook-events'`)
   */
  queueName?: string;
  /**
   * Handler runs at once in this instance, across jobs; with 1, a job's events run in recording order.
   * @defaultValue {@link DEFAULT_REDIS_CONCURRENCY} (1)
   */
  concurrency?: number;
  /**
   * Most events in one job, the first deliveries recorded by one call.
   * @defaultValue {@link DEFAULT_MAX_EVENTS_PER_JOB} (50)
   */
  maxEventsPerJob?: number;
  /**
   * ms from a delivery to its answer's deadline (see {@link DEFAULT_RECORD_TIMEOUT_MS}).
   * @defaultValue {@link DEFAULT_RECORD_TIMEOUT_MS} (2000)
   */
  recordTimeoutMs?: number;
  /**
   * ms a processing lock lasts without renewal.
   * @defaultValue {@link DEFAULT_LOCK_DURATION_MS} (30 000)
   */
  lockDurationMs?: number;
  /**
   * ms between checks for work a dead instance left.
   * @defaultValue {@link DEFAULT_STALLED_INTERVAL_MS} (30 000)
   */
  stalledIntervalMs?: number;
  /**
   * Times a job may be found stalled before it is dead-lettered.
   * @defaultValue {@link DEFAULT_MAX_STALLED_COUNT} (5)
   */
  maxStalledCount?: number;
  /**
   * Start a worker in this instance; false for receive-only instances.
   * @defaultValue `true`
   */
  process?: boolean;
  /**
   * For tests of long dedupe windows: ms added to Redis's clock wherever the store reads it (the
   * window's buckets, the inbox sweep, dead letters), so a test moves the store days forward.
   * Redis's own key expiry is not moved. Give every instance of one receiver the same.
   * @defaultValue none: Redis's clock as it is
   */
  clockSkewMs?: () => number;
}

/** Checks `options` (any mix of sources, as JavaScript may pass: all but one refused) and returns the connection factory. */
export function checkOptions(options: RedisEventStoreBaseOptions & ConnectionSource, libs: Pick<RedisLibraries, 'Redis' | 'Cluster'>) {
  const where = 'createRedisEventStore';
  const { prefix = DEFAULT_RECEIVER_KEY_PREFIX, queueName = DEFAULT_QUEUE_NAME } = options;
  checkOption(typeof prefix === 'string' && /^[^:{}]+$/.test(prefix), `${where}: prefix must be a non-empty string without ":", "{" or "}"`);
  checkOption(typeof queueName === 'string' && /^[^:{}]+$/.test(queueName), `${where}: queueName must be a non-empty string without ":", "{" or "}"`);
  for (const name of ['concurrency', 'maxEventsPerJob', 'recordTimeoutMs', 'lockDurationMs', 'stalledIntervalMs'] as const) {
    if (options[name] !== undefined) checkInteger(`${where}: ${name}`, options[name], { min: 1 });
  }
  if (options.maxStalledCount !== undefined) checkInteger(`${where}: maxStalledCount`, options.maxStalledCount, { min: 0 });
  checkOption(
    options.clockSkewMs === undefined || typeof options.clockSkewMs === 'function',
    `${where}: clockSkewMs must be a function returning milliseconds`,
  );
  return createConnector(options, libs, where);
}
const noSkew = () => 0;

/** `options` with every default filled in, undefined values ignored. */
export function withDefaults(options: RedisEventStoreBaseOptions & ConnectionSource) {
  const defaults = {
    prefix: DEFAULT_RECEIVER_KEY_PREFIX,
    queueName: DEFAULT_QUEUE_NAME,
    concurrency: DEFAULT_REDIS_CONCURRENCY,
    maxEventsPerJob: DEFAULT_MAX_EVENTS_PER_JOB,
    recordTimeoutMs: DEFAULT_RECORD_TIMEOUT_MS,
    lockDurationMs: DEFAULT_LOCK_DURATION_MS,
    stalledIntervalMs: DEFAULT_STALLED_INTERVAL_MS,
    maxStalledCount: DEFAULT_MAX_STALLED_COUNT,
    process: true,
    clockSkewMs: noSkew,
  };
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as RedisEventStoreBaseOptions & ConnectionSource;
  return { ...defaults, ...given };
}
