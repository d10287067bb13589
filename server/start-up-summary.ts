/** The start-up lines: the store (never a password) and webhook delivery (the target's origin only: its path may hold a token). */
import { parseRedisUrl, type ServerConfig } from './config.js';

/** One start-up log line: pino fields and the message. */
export interface StartUpLine {
  fields: Record<string, unknown>;
  message: string;
}

const UNITS: readonly [number, string][] = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'm'],
  [1000, 's'],
];

/**
 * A schedule as the configuration writes it (the largest unit that divides each delay).
 * @example formatSchedule([0, 5000, 300000]) // '0s,5s,5m'
 */
export function formatSchedule(schedule: readonly number[]): string {
  return schedule
    .map((ms) => {
      if (ms === 0) return '0s';
      const unit = UNITS.find(([size]) => ms % size === 0);
      return unit ? `${ms / unit[0]}${unit[1]}` : `${ms}ms`;
    })
    .join(',');
}

function deliveredBy(config: ServerConfig): string {
  const durable = Boolean(config.redisUrl || config.redisClusterNodes);
  if (!durable) return 'this instance (in memory: events still pending at exit are lost)';
  return config.webhook?.worker === false ? 'separate worker processes (session-resume-api-server worker)' : 'this instance';
}

/**
 * The webhook line of the start-up log.
 * @example webhookStartUpLine(config).message // 'webhooks to https://hooks.example.org, schedule 0s,5s,5m, signed, delivered by this instance'
 */
export function webhookStartUpLine(config: ServerConfig): StartUpLine {
  const webhook = config.webhook;
  if (!webhook) {
    return {
      fields: { webhooks: 'off' },
      message: config.sandbox ? "webhooks: off (WEBHOOK_URL unset); events go to each world's feed only" : 'webhooks: off (WEBHOOK_URL unset)',
    };
  }
  const target = new URL(webhook.url).origin;
  const schedule = formatSchedule(webhook.schedule);
  const secrets = webhook.secret?.length ?? 0;
  const signing = secrets > 0 ? 'on' : 'off';
  const delivery = deliveredBy(config);
  return {
    fields: { target, schedule, attempts: webhook.schedule.length, signing, secrets, delivery },
    message: `webhooks to ${target}, schedule ${schedule}, ${secrets > 0 ? `signed with ${secrets} secret${secrets === 1 ? '' : 's'}` : 'unsigned (WEBHOOK_SECRET unset)'}, delivered by ${delivery}`,
  };
}

/**
 * Where the configured Redis is (never its password), or the cluster's seeds; undefined for memory.
 * @example redisLocation(config) // 'Redis at cache:6379 db 0'
 */
export function redisLocation(config: ServerConfig): string | undefined {
  if (config.redisClusterNodes) return `Redis Cluster (seeds ${config.redisClusterNodes.join(', ')})`;
  if (!config.redisUrl) return undefined;
  const { host, port, db, tls } = parseRedisUrl(config.redisUrl);
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return `Redis at ${address} db ${db}${tls ? ' (TLS)' : ''}`;
}

/**
 * The store line of the start-up log: which Redis under which key prefix, or the memory store.
 * @example storeStartUpLine(config).message // 'store: Redis at cache:6379 db 0, key prefix session-resume:'
 */
export function storeStartUpLine(config: ServerConfig): StartUpLine {
  const prefix = config.redisKeyPrefix;
  const location = redisLocation(config);
  if (location === undefined) {
    return {
      fields: { store: 'memory' },
      message: config.sandbox ? 'store: in memory, a world per sandbox key' : 'store: in memory (REDIS_URL unset): state lives and ends with this process',
    };
  }
  const where = config.redisClusterNodes ? { seeds: config.redisClusterNodes } : parseRedisUrl(config.redisUrl ?? '');
  return { fields: { store: config.redisClusterNodes ? 'redis-cluster' : 'redis', ...where, prefix }, message: `store: ${location}, key prefix ${prefix}` };
}
