/**
 * The typed configuration of the reference server, read from an environment object. One of
 * the two files allowed to see `process.env` (it is handed in by `server/main.ts`).
 */
import { randomBytes } from 'node:crypto';
import { validateWebhookUrl } from '../spec/webhook-url.js';
import { createWebhookHeaders } from '../spec/delivery/webhook-headers.js';
import { parseRetrySchedule, STANDARD_WEBHOOKS_SCHEDULE_MS } from '../spec/delivery/retry-rules.js';
import { DEFAULT_CONCURRENCY } from './webhooks/delivery-queue.js';

/** Everything `server/main.ts` needs, checked. */
export interface ServerConfig {
  /** TCP port (`PORT`, default 3000; 0 picks a free one). */
  port: number;
  /** Interface to bind (`HOST`, default 127.0.0.1: local use; set 0.0.0.0 to expose). */
  host: string;
  /** Accepted API keys (`API_KEYS`, comma-separated). */
  apiKeys: string[];
  /** True when `API_KEYS` was unset and one random development key was generated. */
  apiKeyGenerated: boolean;
  /** Seed file (`SESSIONS_FILE`); undefined: the demo set. */
  sessionsFile?: string;
  /** Redis URL (`REDIS_URL`); undefined: in-memory store (or a cluster, below). */
  redisUrl?: string;
  /** Redis Cluster seed nodes (`REDIS_CLUSTER_NODES`, comma-separated `host:port`); exclusive with `redisUrl`. */
  redisClusterNodes?: string[];
  /**
   * Replicas that must acknowledge each resume before it is answered (`REDIS_WAIT_REPLICAS`,
   * default 0: off). With 1, a resume a failover could lose answers 503 instead of 200.
   */
  redisWaitReplicas: number;
  /** Prefix of every Redis key (`REDIS_KEY_PREFIX`, default `session-resume:`). */
  redisKeyPrefix: string;
  /**
   * Webhook delivery (`WEBHOOK_URL`, `WEBHOOK_ALLOW_PRIVATE=1`, `WEBHOOK_CA_FILE`); undefined: none.
   * `secret`: `WEBHOOK_SECRET` (whsec_ + base64) signs deliveries; `schedule`: `WEBHOOK_RETRY_SCHEDULE`
   * (delay before each attempt in ms; default the Standard Webhooks example, in both modes); `worker`:
   * `WEBHOOK_WORKER` (default 1: this instance delivers; 0: only `… worker` processes do);
   * `concurrency`: `WEBHOOK_CONCURRENCY`, attempts in flight at once per instance (default 50).
   */
  webhook?: { url: string; allowPrivate: boolean; caFile?: string; secret?: string; schedule: number[]; worker: boolean; concurrency: number };
  /** Per-key rate limit (`RATE_LIMIT` requests per `RATE_LIMIT_WINDOW_MS`, default 60 000 ms); undefined: off. */
  rateLimit?: { limit: number; windowMs: number };
  /** CORS origins (`CORS_ORIGINS`, comma-separated); empty: CORS off. */
  corsOrigins: string[];
  /** pino level (`LOG_LEVEL`, default info). */
  logLevel: string;
  /**
   * Check every answer against the spec (`VALIDATE_RESPONSES=1|0`; default on, off when
   * `NODE_ENV=production`: x-decisions: response-validation).
   */
  validateResponses: boolean;
  /** Sandbox mode (`--sandbox` only, never from the environment): see server/sandbox/. */
  sandbox: boolean;
}

/** What the command line adds to the environment. */
export interface ConfigFlags {
  /** `--sandbox`: `sandbox_` keys with their own worlds, /_sandbox, CORS open by default, loopback http webhooks. */
  sandbox?: boolean;
}

/** Thrown for an unusable environment; the message names the variable and what to fix. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The environment shape `loadConfig` reads. */
export type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads and checks the configuration; throws `ConfigError` for the first problem found. */
export function loadConfig(env: Env, flags: ConfigFlags = {}): ServerConfig {
  const sandbox = flags.sandbox === true;
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const integer = (name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const raw = text(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      throw new ConfigError(`${name}=${raw} must be a whole number from ${min} to ${max}.`);
    }
    return value;
  };
  const list = (name: string): string[] =>
    (text(name) ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);

  const port = integer('PORT', 3000, 0, 65535);
  const configuredKeys = list('API_KEYS');
  // Set but holding no key (" ", " , "): a typo, never a request for a random key.
  if (env.API_KEYS !== undefined && env.API_KEYS !== '' && configuredKeys.length === 0) {
    throw new ConfigError('API_KEYS is set but holds no key: give comma-separated keys, or leave it unset for a generated development key.');
  }
  const apiKeyGenerated = configuredKeys.length === 0;
  const apiKeys = apiKeyGenerated ? [`dev_${randomBytes(18).toString('base64url')}`] : configuredKeys;
  const badKey = apiKeys.find((key) => !/^[A-Za-z0-9\-._~+/]+=*$/.test(key));
  if (badKey !== undefined) {
    // RFC 6750 §2.1 b64token: anything else could never be sent in a Bearer header.
    throw new ConfigError('API_KEYS holds a key with characters a Bearer token cannot carry (allowed: A-Z a-z 0-9 - . _ ~ + / and trailing =).');
  }

  const redisUrl = text('REDIS_URL');
  if (redisUrl && sandbox) {
    throw new ConfigError('REDIS_URL is set, but the sandbox keeps its worlds in memory: unset REDIS_URL to run --sandbox.');
  }
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError(`REDIS_URL=${redisUrl} must start with redis:// or rediss://.`);
  }
  const redisClusterNodes = clusterNodes(list('REDIS_CLUSTER_NODES'));
  if (redisUrl && redisClusterNodes) {
    throw new ConfigError('Set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both.');
  }

  let webhook: ServerConfig['webhook'];
  const webhookUrl = text('WEBHOOK_URL');
  const allowPrivate = flag(env, 'WEBHOOK_ALLOW_PRIVATE');
  if (webhookUrl) {
    // Source spec §6 rule 1: HTTPS only; plain HTTP stays refused even with WEBHOOK_ALLOW_PRIVATE.
    // The sandbox alone also accepts http:// on localhost or loopback (x-decisions: sandbox-webhooks in spec/sandbox.yaml).
    const check = validateWebhookUrl(webhookUrl, { allowPrivate, allowLoopbackHttp: sandbox });
    if (!check.ok) throw new ConfigError(`WEBHOOK_URL is refused: ${check.reason}`);
    const caFile = text('WEBHOOK_CA_FILE');
    const concurrency = integer('WEBHOOK_CONCURRENCY', DEFAULT_CONCURRENCY, 1, 1000);
    webhook = { url: check.url.href, allowPrivate, ...(caFile ? { caFile } : {}), ...webhookDelivery(env, text), concurrency };
  }

  const limit = integer('RATE_LIMIT', 0, 0);
  const rateLimit = limit > 0 ? { limit, windowMs: integer('RATE_LIMIT_WINDOW_MS', 60_000, 1, 86_400_000) } : undefined;

  // The sandbox serves pages on any origin unless told otherwise.
  const corsOrigins = list('CORS_ORIGINS').length || !sandbox ? list('CORS_ORIGINS') : ['*'];
  for (const origin of corsOrigins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new ConfigError(`CORS_ORIGINS entry "${origin}" must be an origin like https://app.example.org (no path) or *.`);
    }
  }

  const logLevel = text('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL=${logLevel} must be one of ${LOG_LEVELS.join(', ')}.`);

  const sessionsFile = text('SESSIONS_FILE');
  const validateResponses = text('VALIDATE_RESPONSES') === undefined ? text('NODE_ENV') !== 'production' : flag(env, 'VALIDATE_RESPONSES');
  return {
    port,
    host: text('HOST') ?? '127.0.0.1',
    apiKeys,
    apiKeyGenerated,
    ...(sessionsFile ? { sessionsFile } : {}),
    ...(redisUrl ? { redisUrl } : {}),
    ...(redisClusterNodes ? { redisClusterNodes } : {}),
    redisKeyPrefix: text('REDIS_KEY_PREFIX') ?? 'session-resume:',
    redisWaitReplicas: integer('REDIS_WAIT_REPLICAS', 0, 0, 16),
    ...(webhook ? { webhook } : {}),
    ...(rateLimit ? { rateLimit } : {}),
    corsOrigins,
    logLevel,
    validateResponses,
    sandbox,
  };
}

/** Where Redis is (`REDIS_CLUSTER_NODES` or `REDIS_URL`); undefined: the in-memory store. */
export function redisTargetOf(config: ServerConfig): { url: string } | { clusterNodes: string[] } | undefined {
  if (config.redisClusterNodes) return { clusterNodes: config.redisClusterNodes };
  return config.redisUrl ? { url: config.redisUrl } : undefined;
}

/** Checks `host:port` seeds (IPv6 in brackets); undefined when none are given. */
function clusterNodes(entries: string[]): string[] | undefined {
  if (entries.length === 0) return undefined;
  for (const entry of entries) {
    const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d{1,5})$/.exec(entry);
    if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535) {
      throw new ConfigError(
        `REDIS_CLUSTER_NODES entry "${entry}" must be host:port (for example 10.0.0.5:7000 or [::1]:7000), comma-separated, no scheme.`,
      );
    }
  }
  return entries;
}

/** WEBHOOK_SECRET, WEBHOOK_RETRY_SCHEDULE and WEBHOOK_WORKER, checked. */
function webhookDelivery(env: Env, text: (name: string) => string | undefined) {
  const secret = text('WEBHOOK_SECRET');
  if (secret !== undefined) {
    try {
      createWebhookHeaders({ secret });
    } catch (err) {
      throw new ConfigError(`WEBHOOK_SECRET is refused: ${(err as Error).message}`);
    }
  }
  const scheduleText = text('WEBHOOK_RETRY_SCHEDULE');
  let schedule = [...STANDARD_WEBHOOKS_SCHEDULE_MS];
  if (scheduleText !== undefined) {
    try {
      schedule = parseRetrySchedule(scheduleText);
    } catch (err) {
      throw new ConfigError(`WEBHOOK_RETRY_SCHEDULE=${scheduleText}: ${(err as Error).message}`);
    }
  }
  const worker = env.WEBHOOK_WORKER === undefined ? true : flag(env, 'WEBHOOK_WORKER');
  return { ...(secret ? { secret } : {}), schedule, worker };
}

/** `1`, `true`, `yes` (any case) are on; unset, `0`, `false`, `no` are off; anything else is an error. */
function flag(env: Env, name: string): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw || ['0', 'false', 'no'].includes(raw)) return false;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  throw new ConfigError(`${name}=${env[name]} must be 1 or 0.`);
}
