/**
 * The typed configuration of the reference server, read from an environment object. One of
 * the two files allowed to see `process.env` (it is handed in by `server/main.ts`).
 */
import { randomBytes } from 'node:crypto';
import { validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';
import { redactUrl } from '@session-resume-api/runtime/redact-url';
import { createWebhookHeaders } from '@session-resume-api/runtime/delivery/webhook-headers';
import { parseRetrySchedule, STANDARD_WEBHOOKS_SCHEDULE_MS } from '@session-resume-api/runtime/delivery/retry-rules';
import { parseHostPort } from '@session-resume-api/runtime/host-port';
import { parseWholeNumber } from '@session-resume-api/runtime/options-error';
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
   * `concurrency`: `WEBHOOK_CONCURRENCY`, attempts in flight at once per instance (default 50);
   * `insecureLocalhost`: true when the URL is plain `http://` on a loopback host, which only
   * `WEBHOOK_INSECURE_LOCALHOST=1` (default 0) or sandbox mode allow.
   */
  webhook?: { url: string; allowPrivate: boolean; caFile?: string; secret?: string; schedule: number[]; worker: boolean; concurrency: number; insecureLocalhost?: true };
  /** `WEBHOOK_INSECURE_LOCALHOST=1` (default 0): plain `http://` webhook URLs on loopback hosts are accepted in every mode, for local testing. */
  webhookInsecureLocalhost?: true;
  /** Port of the Prometheus metrics listener, bound to `host` (`METRICS_PORT`; default unset: no metrics listener). */
  metricsPort?: number;
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
  /**
   * Idempotency-Key records: `ttlSeconds` (`IDEMPOTENCY_TTL`, seconds, default 86 400: 24 h)
   * is how long a key's answer is kept, in memory and in Redis; `maxKeys`
   * (`IDEMPOTENCY_MAX_KEYS`, default 100 000) caps the keys the memory store keeps, least
   * recently used dropped first (Redis is bounded by the TTL: docs/bounds.md).
   */
  idempotency: { ttlSeconds: number; maxKeys: number };
  /** Sessions one sandbox world holds at most (`SANDBOX_MAX_SESSIONS`, default 1000). */
  sandboxMaxSessions: number;
}

/** What the command line adds to the environment. */
export interface ConfigFlags {
  /** `--sandbox` ({@link SANDBOX_FLAG_HELP}); also accepts loopback http:// webhooks. */
  sandbox?: boolean;
}

/** Thrown for an unusable environment; the message names the variable and what to fix. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The environment shape `loadConfig` reads. */
export type Env = Record<string, string | undefined>;


/** The `--sandbox` flag, as `--help` describes it. */
export const SANDBOX_FLAG_HELP =
  'sandbox mode: every sandbox_ key gets its own world, /_sandbox control API, CORS open (never for production)';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** One environment variable of the server: its default and what it sets, as `--help` prints them. */
export interface EnvVariable {
  /** The default: the value the loader uses (a number or a text), or a sentence saying what happens when unset. */
  default: string | number;
  /** What the variable sets, in one line. */
  meaning: string;
}

/**
 * Every environment variable the server and its commands read, in the order `--help` lists
 * them. Adding a variable is one entry here (a unit test fails when `loadConfig` reads a name
 * this table lacks); numeric and text defaults are read from here by the loader.
 */
export const ENVIRONMENT = {
  PORT: { default: 3000, meaning: 'TCP port to listen on (0 picks a free one)' },
  HOST: { default: '127.0.0.1', meaning: 'interface to bind (0.0.0.0 to expose)' },
  API_KEYS: { default: 'a development key, generated and printed', meaning: 'accepted bearer keys, comma-separated' },
  SESSIONS_FILE: { default: 'the demo set', meaning: 'JSON array of { "id", "status" } to seed the store from' },
  REDIS_URL: { default: 'unset: the in-memory store', meaning: 'Redis store shared by several instances (redis:// or rediss://)' },
  REDIS_CLUSTER_NODES: { default: 'unset', meaning: 'Redis Cluster seed nodes, host:port comma-separated (not with REDIS_URL)' },
  REDIS_KEY_PREFIX: { default: 'session-resume:', meaning: 'prefix of every Redis key (no { or })' },
  REDIS_WAIT_REPLICAS: { default: 0, meaning: 'replicas that must acknowledge each resume before it is answered (0: off)' },
  WEBHOOK_URL: { default: 'unset: no events', meaning: 'HTTPS URL that receives session.resumed after each resume' },
  WEBHOOK_ALLOW_PRIVATE: { default: 0, meaning: '1 allows loopback and private receivers (local testing only)' },
  WEBHOOK_CA_FILE: { default: 'the system roots', meaning: 'PEM CA file to trust for the webhook receiver' },
  WEBHOOK_SECRET: { default: 'unset: unsigned', meaning: 'whsec_ + base64: signs every delivery (Standard Webhooks)' },
  WEBHOOK_RETRY_SCHEDULE: {
    default: 'the Standard Webhooks schedule',
    meaning: 'delay before each attempt, comma-separated, units ms s m h d (e.g. 0,5s,5m,30m,2h)',
  },
  WEBHOOK_WORKER: { default: 1, meaning: '0: this instance serves HTTP only and `worker` processes deliver' },
  WEBHOOK_CONCURRENCY: { default: DEFAULT_CONCURRENCY, meaning: 'delivery attempts in flight at once per instance (1 to 1000)' },
  WEBHOOK_INSECURE_LOCALHOST: { default: 0, meaning: '1 accepts a plain http:// WEBHOOK_URL on a loopback host (local testing only)' },
  METRICS_PORT: { default: 'unset: no metrics listener', meaning: 'port of the Prometheus /metrics listener, bound to HOST' },
  IDEMPOTENCY_TTL: { default: 86_400, meaning: 'seconds an Idempotency-Key and its answer are kept' },
  IDEMPOTENCY_MAX_KEYS: { default: 100_000, meaning: 'Idempotency-Keys the memory store keeps at most (least recently used dropped)' },
  SANDBOX_MAX_SESSIONS: { default: 1000, meaning: 'sessions one sandbox world holds at most' },
  RATE_LIMIT: { default: 'unset: off', meaning: 'requests per API key per window' },
  RATE_LIMIT_WINDOW_MS: { default: 60_000, meaning: 'rate-limit window in ms (at most one day)' },
  CORS_ORIGINS: { default: 'unset: CORS off; * in the sandbox', meaning: 'allowed browser origins, comma-separated, or *' },
  LOG_LEVEL: { default: 'info', meaning: `log level: ${LOG_LEVELS.join(', ')}` },
  VALIDATE_RESPONSES: { default: '1, or 0 when NODE_ENV=production', meaning: 'check every answer against the spec (a mismatch is a 500)' },
  NODE_ENV: { default: 'unset', meaning: 'production turns VALIDATE_RESPONSES off by default' },
} as const satisfies Record<string, EnvVariable>;

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
    const value = parseWholeNumber(raw, { min, max });
    if (value === undefined) throw new ConfigError(`${name}=${raw} must be a whole number from ${min} to ${max}.`);
    return value;
  };
  const list = (name: string): string[] =>
    (text(name) ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);

  const port = integer('PORT', ENVIRONMENT.PORT.default, 0, 65535);
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
    // Printed without userinfo and query: the value may hold a password.
    throw new ConfigError(`REDIS_URL=${redactUrl(redisUrl)} must start with redis:// or rediss://.`);
  }
  const redisClusterNodes = clusterNodes(list('REDIS_CLUSTER_NODES'));
  if (redisUrl && redisClusterNodes) {
    throw new ConfigError('Set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both.');
  }

  let webhook: ServerConfig['webhook'];
  const webhookUrl = text('WEBHOOK_URL');
  const allowPrivate = flag(env, 'WEBHOOK_ALLOW_PRIVATE');
  const webhookInsecureLocalhost = flag(env, 'WEBHOOK_INSECURE_LOCALHOST');
  if (webhookUrl) {
    // Source spec §6 rule 1: HTTPS only; plain HTTP stays refused even with WEBHOOK_ALLOW_PRIVATE.
    // Only a loopback receiver may use http://, with WEBHOOK_INSECURE_LOCALHOST=1 or in the
    // sandbox (x-decisions: sandbox-webhooks in spec/sandbox.yaml).
    const check = validateWebhookUrl(webhookUrl, {
      allowPrivate,
      allowLoopbackHttp: sandbox || webhookInsecureLocalhost,
      loopbackHttpHint: 'For a receiver on a loopback host, set WEBHOOK_INSECURE_LOCALHOST=1 (local testing only).',
    });
    if (!check.ok) throw new ConfigError(`WEBHOOK_URL is refused: ${check.reason}`);
    const caFile = text('WEBHOOK_CA_FILE');
    const concurrency = integer('WEBHOOK_CONCURRENCY', ENVIRONMENT.WEBHOOK_CONCURRENCY.default, 1, 1000);
    const insecureLocalhost = check.url.protocol === 'http:';
    webhook = {
      url: check.url.href,
      allowPrivate,
      ...(caFile ? { caFile } : {}),
      ...webhookDelivery(env, text),
      concurrency,
      ...(insecureLocalhost ? { insecureLocalhost } : {}),
    };
  }
  const metricsPort = text('METRICS_PORT') === undefined ? undefined : integer('METRICS_PORT', 0, 0, 65535);

  const limit = integer('RATE_LIMIT', 0, 0);
  const rateLimit = limit > 0 ? { limit, windowMs: integer('RATE_LIMIT_WINDOW_MS', ENVIRONMENT.RATE_LIMIT_WINDOW_MS.default, 1, 86_400_000) } : undefined;

  // The sandbox serves pages on any origin unless told otherwise.
  const corsOrigins = list('CORS_ORIGINS').length || !sandbox ? list('CORS_ORIGINS') : ['*'];
  for (const origin of corsOrigins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new ConfigError(`CORS_ORIGINS entry "${origin}" must be an origin like https://app.example.org (no path) or *.`);
    }
  }

  const logLevel = text('LOG_LEVEL') ?? ENVIRONMENT.LOG_LEVEL.default;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL=${logLevel} must be one of ${LOG_LEVELS.join(', ')}.`);

  const sessionsFile = text('SESSIONS_FILE');
  const validateResponses = text('VALIDATE_RESPONSES') === undefined ? text('NODE_ENV') !== 'production' : flag(env, 'VALIDATE_RESPONSES');
  return {
    port,
    host: text('HOST') ?? ENVIRONMENT.HOST.default,
    apiKeys,
    apiKeyGenerated,
    ...(sessionsFile ? { sessionsFile } : {}),
    ...(redisUrl ? { redisUrl } : {}),
    ...(redisClusterNodes ? { redisClusterNodes } : {}),
    redisKeyPrefix: text('REDIS_KEY_PREFIX') ?? ENVIRONMENT.REDIS_KEY_PREFIX.default,
    redisWaitReplicas: integer('REDIS_WAIT_REPLICAS', ENVIRONMENT.REDIS_WAIT_REPLICAS.default, 0, 16),
    ...(webhook ? { webhook } : {}),
    ...(webhookInsecureLocalhost ? { webhookInsecureLocalhost } : {}),
    ...(metricsPort === undefined ? {} : { metricsPort }),
    ...(rateLimit ? { rateLimit } : {}),
    corsOrigins,
    logLevel,
    validateResponses,
    sandbox,
    idempotency: { ttlSeconds: integer('IDEMPOTENCY_TTL', ENVIRONMENT.IDEMPOTENCY_TTL.default, 1, 30 * 86_400), maxKeys: integer('IDEMPOTENCY_MAX_KEYS', ENVIRONMENT.IDEMPOTENCY_MAX_KEYS.default, 1, 100_000_000) },
    sandboxMaxSessions: integer('SANDBOX_MAX_SESSIONS', ENVIRONMENT.SANDBOX_MAX_SESSIONS.default, 1, 1_000_000),
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
    if (!parseHostPort(entry)) {
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
