/** The server's typed configuration, read from an environment object `server/main.ts` hands in. */
import { randomBytes } from 'node:crypto';
import { BEARER_TOKEN_CHARACTERS, isBearerToken } from '@session-resume-api/runtime/bearer-token';
import { validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';
import { redactUrl } from '@session-resume-api/runtime/redact-url';
import { createWebhookHeaders } from '@session-resume-api/runtime/delivery/webhook-headers';
import { parseRetrySchedule, STANDARD_WEBHOOKS_SCHEDULE_MS } from '@session-resume-api/runtime/delivery/retry-rules';
import { parseHostPort } from '@session-resume-api/runtime/host-port';
import { OptionsError, parseWholeNumber } from '@session-resume-api/runtime/options-error';
import { DEFAULT_SERVER_KEY_PREFIX } from './redis/redis-keys.js';
import { DEFAULT_MAX_SESSIONS } from './sandbox/sandbox-worlds.js';
import { DEFAULT_IDEMPOTENCY_MAX_KEYS, IDEMPOTENCY_TTL_SECONDS } from './sessions/session-store.js';
import { DEFAULT_CONCURRENCY } from './webhooks/delivery-queue.js';
import { ENDPOINT_HEALTH_POLICY } from './webhooks/endpoint-health-policy.js';

/** Everything `server/main.ts` needs, checked; each variable's default is in {@link ENVIRONMENT}. */
export interface ServerConfig {
  /** `PORT` (`SANDBOX_PORT` in the sandbox); 0 picks a free one. */
  port: number;
  portVariable: 'PORT' | 'SANDBOX_PORT';
  /** `HOST`: local use by default; 0.0.0.0 exposes. */
  host: string;
  apiKeys: string[];
  /** `API_KEYS` was unset and one development key was generated. */
  apiKeyGenerated: boolean;
  sessionsFile?: string;
  redisUrl?: string;
  /** `REDIS_CLUSTER_NODES` (`host:port` list); exclusive with `redisUrl`. */
  redisClusterNodes?: string[];
  /** `REDIS_WAIT_REPLICAS`: with 1, a resume a failover could lose answers 503 instead of 200. */
  redisWaitReplicas: number;
  redisKeyPrefix: string;
  /**
   * `WEBHOOK_*` (undefined: no delivery). `insecureLocalhost`: the URL is plain `http://` on a
   * loopback host, which only `WEBHOOK_INSECURE_LOCALHOST=1` or sandbox mode allow.
   */
  webhook?: {
    url: string;
    allowPrivate: boolean;
    caFile?: string;
    secret?: readonly string[];
    schedule: number[];
    worker: boolean;
    concurrency: number;
    /** `WEBHOOK_MAX_HELD_EVENTS`: events held at most while the endpoint is open or disabled. */
    maxHeldEvents: number;
    insecureLocalhost?: true;
    /** `WEBHOOK_HEALTH_NOTIFY_URL`: told each change of the endpoint's state. */
    notifyUrl?: string;
  };
  /** `WEBHOOK_INSECURE_LOCALHOST=1`: plain `http://` webhook URLs on loopback hosts accepted in every mode. */
  webhookInsecureLocalhost?: true;
  /** `METRICS_PORT`, bound to `host`; unset: no metrics listener. */
  metricsPort?: number;
  rateLimit?: { limit: number; windowMs: number };
  corsOrigins: string[];
  logLevel: string;
  /** `VALIDATE_RESPONSES`; off by default when `NODE_ENV=production` (x-decisions: response-validation). */
  validateResponses: boolean;
  /** `--sandbox` only, never from the environment. */
  sandbox: boolean;
  /** `IDEMPOTENCY_TTL` (seconds, memory and Redis) and `IDEMPOTENCY_MAX_KEYS` (the memory store's cap). */
  idempotency: { ttlSeconds: number; maxKeys: number };
  sandboxMaxSessions: number;
}

/** What the command line adds to the environment. */
export interface ConfigFlags {
  /** `--sandbox` ({@link SANDBOX_FLAG_HELP}); also accepts loopback http:// webhooks. */
  sandbox?: boolean;
}

/** The environment shape `loadConfig` reads. */
export type Env = Record<string, string | undefined>;

/** The `--sandbox` flag, as `--help` describes it. */
export const SANDBOX_FLAG_HELP = 'sandbox mode: every sandbox_ key gets its own world, /_sandbox control API, CORS open (never for production)';

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
  PORT: { default: 3000, meaning: 'TCP port to listen on (0 picks a free one); the sandbox uses SANDBOX_PORT' },
  SANDBOX_PORT: { default: 3100, meaning: 'TCP port of the sandbox (--sandbox), so it can run beside the server' },
  HOST: { default: '127.0.0.1', meaning: 'interface to bind (0.0.0.0 to expose)' },
  API_KEYS: { default: 'a development key, generated and printed', meaning: 'accepted bearer keys, comma-separated' },
  SESSIONS_FILE: { default: 'the demo set', meaning: 'JSON array of { "id", "status" } to seed the store from' },
  REDIS_URL: { default: 'unset: the in-memory store', meaning: 'Redis store shared by several instances (redis:// or rediss://)' },
  REDIS_CLUSTER_NODES: { default: 'unset', meaning: 'Redis Cluster seed nodes, host:port comma-separated (not with REDIS_URL)' },
  REDIS_KEY_PREFIX: { default: DEFAULT_SERVER_KEY_PREFIX, meaning: 'prefix of every Redis key (no { or })' },
  REDIS_WAIT_REPLICAS: { default: 0, meaning: 'replicas that must acknowledge each resume before it is answered (0: off)' },
  WEBHOOK_URL: { default: 'unset: no events', meaning: 'HTTPS URL that receives session.resumed after each resume' },
  WEBHOOK_ALLOW_PRIVATE: { default: 0, meaning: '1 allows loopback and private receivers (local testing only)' },
  WEBHOOK_CA_FILE: { default: 'the system roots', meaning: 'PEM CA file to trust for the webhook receiver' },
  WEBHOOK_SECRET: {
    default: 'unset: unsigned',
    meaning: 'whsec_ + base64: signs every delivery (Standard Webhooks); several, comma-separated, sign each delivery with each (rotation)',
  },
  WEBHOOK_RETRY_SCHEDULE: {
    default: 'the Standard Webhooks schedule',
    meaning: 'delay before each attempt, comma-separated, units ms s m h d (e.g. 0,5s,5m,30m,2h)',
  },
  WEBHOOK_WORKER: { default: 1, meaning: '0: this instance serves HTTP only and `worker` processes deliver' },
  WEBHOOK_CONCURRENCY: { default: DEFAULT_CONCURRENCY, meaning: 'delivery attempts in flight at once per instance (1 to 1000)' },
  WEBHOOK_MAX_HELD_EVENTS: {
    default: ENDPOINT_HEALTH_POLICY.maxHeldEvents,
    meaning: 'events held at most for the webhook endpoint while it is open or disabled (1 to 10000000); one more goes to the dead letters',
  },
  WEBHOOK_HEALTH_NOTIFY_URL: {
    default: 'unset: changes are logged and counted only',
    meaning: "HTTPS URL told each change of the webhook endpoint's state (open, disabled, closed), signed like deliveries",
  },
  WEBHOOK_INSECURE_LOCALHOST: { default: 0, meaning: '1 accepts a plain http:// WEBHOOK_URL on a loopback host (local testing only)' },
  METRICS_PORT: { default: 'unset: no metrics listener', meaning: 'port of the Prometheus /metrics listener, bound to HOST' },
  IDEMPOTENCY_TTL: { default: IDEMPOTENCY_TTL_SECONDS, meaning: 'seconds an Idempotency-Key and its answer are kept' },
  IDEMPOTENCY_MAX_KEYS: { default: DEFAULT_IDEMPOTENCY_MAX_KEYS, meaning: 'Idempotency-Keys the memory store keeps at most (least recently used dropped)' },
  SANDBOX_MAX_SESSIONS: { default: DEFAULT_MAX_SESSIONS, meaning: 'sessions one sandbox world holds at most' },
  RATE_LIMIT: { default: 'unset: off', meaning: 'requests per API key per window' },
  RATE_LIMIT_WINDOW_MS: { default: 60_000, meaning: 'rate-limit window in ms (at most one day)' },
  CORS_ORIGINS: { default: 'unset: CORS off; * in the sandbox', meaning: 'allowed browser origins, comma-separated, or *' },
  LOG_LEVEL: { default: 'info', meaning: `log level: ${LOG_LEVELS.join(', ')}` },
  VALIDATE_RESPONSES: { default: '1, or 0 when NODE_ENV=production', meaning: 'check every answer against the spec (a mismatch is a 500)' },
  NODE_ENV: { default: 'unset', meaning: 'production turns VALIDATE_RESPONSES off by default' },
} as const satisfies Record<string, EnvVariable>;

/** Reads and checks the configuration; throws `OptionsError` (`option` names the variable) for the first problem found. */
export function loadConfig(env: Env, flags: ConfigFlags = {}): ServerConfig {
  const sandbox = flags.sandbox === true;
  refuseBlank(env);
  const read = createEnvReader(env);
  const keys = apiKeySettings(read);
  const redis = redisSettings(read, sandbox);
  const webhooks = webhookSettings(read, sandbox);
  const sessionsFile = read.text('SESSIONS_FILE');
  return {
    ...listenSettings(read, sandbox),
    ...keys,
    ...(sessionsFile ? { sessionsFile } : {}),
    ...redis,
    ...webhooks,
    ...httpSettings(read, sandbox),
    ...logSettings(read),
    sandbox,
    idempotency: {
      ttlSeconds: read.integer('IDEMPOTENCY_TTL', ENVIRONMENT.IDEMPOTENCY_TTL.default, 1, 30 * 86_400),
      maxKeys: read.integer('IDEMPOTENCY_MAX_KEYS', ENVIRONMENT.IDEMPOTENCY_MAX_KEYS.default, 1, 100_000_000),
    },
    sandboxMaxSessions: read.integer('SANDBOX_MAX_SESSIONS', ENVIRONMENT.SANDBOX_MAX_SESSIONS.default, 1, 1_000_000),
  };
}

/**
 * Refused when empty rather than read as unset: each names a target or a credential, and an empty
 * one is usually an unfilled template; unset, the server would fall back and run in the wrong place.
 * The held backlog's bound too: an operator who meant to size it would silently get the default.
 */
const REFUSED_WHEN_BLANK = {
  API_KEYS: 'a generated development key',
  REDIS_URL: 'the in-memory store',
  REDIS_CLUSTER_NODES: 'the in-memory store',
  WEBHOOK_URL: 'no webhooks',
  WEBHOOK_SECRET: 'unsigned deliveries',
  WEBHOOK_MAX_HELD_EVENTS: `${ENDPOINT_HEALTH_POLICY.maxHeldEvents} held events at most`,
} as const;

function refuseBlank(env: Env): void {
  for (const [name, unset] of Object.entries(REFUSED_WHEN_BLANK)) {
    if (env[name] !== undefined && env[name].trim() === '') {
      throw new OptionsError(`${name} is set but blank: give it a value, or unset it for ${unset}.`, { option: name });
    }
  }
}

/** The readers every setting goes through: trimmed text (blank is unset), whole numbers, lists, flags. */
interface EnvReader {
  env: Env;
  text(name: string): string | undefined;
  integer(name: string, fallback: number, min: number, max?: number): number;
  list(name: string): string[];
  flag(name: string): boolean;
}

function createEnvReader(env: Env): EnvReader {
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  return {
    env,
    text,
    integer(name, fallback, min, max = Number.MAX_SAFE_INTEGER) {
      const raw = text(name);
      if (raw === undefined) return fallback;
      const value = parseWholeNumber(raw, { min, max });
      if (value === undefined) throw new OptionsError(`${name}=${raw} must be a whole number from ${min} to ${max}.`, { option: name });
      return value;
    },
    list: (name) =>
      (text(name) ?? '')
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    flag: (name) => flag(env, name),
  };
}

/** PORT (or SANDBOX_PORT in the sandbox, so both can run side by side) and HOST. */
function listenSettings(read: EnvReader, sandbox: boolean): Pick<ServerConfig, 'port' | 'portVariable' | 'host'> {
  const portVariable = sandbox ? 'SANDBOX_PORT' : 'PORT';
  const port = sandbox ? read.integer('SANDBOX_PORT', ENVIRONMENT.SANDBOX_PORT.default, 0, 65535) : read.integer('PORT', ENVIRONMENT.PORT.default, 0, 65535);
  const host = read.text('HOST') ?? ENVIRONMENT.HOST.default;
  if (/[[\]\s/]/.test(host)) {
    // Node's listen() takes a bare address: "[::1]" would fail later as an unknown host.
    throw new OptionsError(`HOST=${host} must be a bare address or host name (for IPv6 without brackets, e.g. ::1).`, { option: 'HOST' });
  }
  return { port, portVariable, host };
}

function apiKeySettings(read: EnvReader): Pick<ServerConfig, 'apiKeys' | 'apiKeyGenerated'> {
  const configuredKeys = read.list('API_KEYS');
  // Set but holding no key (" , "): a typo, never a request for a random key.
  if (read.env.API_KEYS !== undefined && configuredKeys.length === 0) {
    throw new OptionsError('API_KEYS is set but holds no key: give comma-separated keys, or leave it unset for a generated development key.', {
      option: 'API_KEYS',
    });
  }
  const apiKeyGenerated = configuredKeys.length === 0;
  const apiKeys = apiKeyGenerated ? [`dev_${randomBytes(18).toString('base64url')}`] : configuredKeys;
  const badKey = apiKeys.find((key) => !isBearerToken(key));
  if (badKey !== undefined) {
    // RFC 6750 §2.1 b64token: anything else could never be sent in a Bearer header.
    throw new OptionsError(`API_KEYS holds a key with characters a Bearer token cannot carry (allowed: ${BEARER_TOKEN_CHARACTERS}).`, { option: 'API_KEYS' });
  }
  return { apiKeys, apiKeyGenerated };
}

type RedisSettings = Pick<ServerConfig, 'redisUrl' | 'redisClusterNodes' | 'redisKeyPrefix' | 'redisWaitReplicas'>;

function redisSettings(read: EnvReader, sandbox: boolean): RedisSettings {
  const redisUrl = read.text('REDIS_URL');
  if (redisUrl && sandbox) {
    throw new OptionsError('REDIS_URL is set, but the sandbox keeps its worlds in memory: unset REDIS_URL to run --sandbox.', { option: 'REDIS_URL' });
  }
  if (redisUrl) parseRedisUrl(redisUrl);
  const redisClusterNodes = clusterNodes(read.list('REDIS_CLUSTER_NODES'));
  if (redisUrl && redisClusterNodes) {
    throw new OptionsError('Set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both.', { option: 'REDIS_URL' });
  }
  return {
    ...(redisUrl ? { redisUrl } : {}),
    ...(redisClusterNodes ? { redisClusterNodes } : {}),
    redisKeyPrefix: read.text('REDIS_KEY_PREFIX') ?? ENVIRONMENT.REDIS_KEY_PREFIX.default,
    redisWaitReplicas: read.integer('REDIS_WAIT_REPLICAS', ENVIRONMENT.REDIS_WAIT_REPLICAS.default, 0, 16),
  };
}

/** Where a `REDIS_URL` points, as the start-up line names it (never its password). */
export interface RedisUrlParts {
  host: string;
  port: number;
  db: number;
  tls: boolean;
}

/**
 * Checks a `REDIS_URL` as ioredis reads it and refuses what ioredis would quietly default (no host
 * would connect to 127.0.0.1:6379). Messages name the variable, never the password.
 * @example parseRedisUrl('redis://:pw@cache:6380/2') // { host: 'cache', port: 6380, db: 2, tls: false }
 */
export function parseRedisUrl(raw: string, name = 'REDIS_URL'): RedisUrlParts {
  const shown = redactUrl(raw);
  if (!/^rediss?:\/\//i.test(raw)) throw new OptionsError(`${name}=${shown} must start with redis:// or rediss://.`, { option: name });
  // `redis://user:pw@` or `redis://:6379`: URL refuses an empty host; say that, not "check the port".
  const authority = raw.replace(/^rediss?:\/\//i, '').split(/[/?#]/)[0] ?? '';
  const hostAndPort = authority.slice(authority.lastIndexOf('@') + 1);
  if (hostAndPort === '' || hostAndPort.startsWith(':')) throw noHost(name, shown);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // No cause: URL's error carries the input, and with it the password.
    throw new OptionsError(
      `${name}=${shown} is not a valid URL: check the port (1 to 65535), that an IPv6 address is in brackets (redis://[::1]:6379) and that a password's @ : / are percent-encoded.`,
      { option: name },
    );
  }
  // A tab or newline passes the check above and URL drops it: "redis://\t/0" has no host either.
  if (!url.hostname) throw noHost(name, shown);
  if (url.port === '0') throw new OptionsError(`${name}=${shown}: port 0 is not a Redis port (1 to 65535).`, { option: name });
  // redis://host has no path, redis://host/ the path "/": either way no database in it.
  const dbText = url.pathname.slice(1) || url.searchParams.get('db') || '0';
  const db = parseWholeNumber(dbText, { min: 0, max: 99_999 });
  if (db === undefined)
    throw new OptionsError(`${name}=${shown}: the database after the host must be a number, e.g. redis://127.0.0.1:6379/0.`, { option: name });
  return {
    host: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port ? Number(url.port) : 6379,
    db,
    tls: url.protocol === 'rediss:',
  };
}

function noHost(name: string, shown: string): OptionsError {
  return new OptionsError(`${name}=${shown} has no host: give one, e.g. redis://127.0.0.1:6379 (or unset ${name} for the in-memory store).`, { option: name });
}

/** The WEBHOOK_* variables that shape deliveries; without WEBHOOK_URL they would do nothing. */
const WEBHOOK_DELIVERY_VARIABLES = [
  'WEBHOOK_SECRET',
  'WEBHOOK_RETRY_SCHEDULE',
  'WEBHOOK_WORKER',
  'WEBHOOK_CONCURRENCY',
  'WEBHOOK_CA_FILE',
  'WEBHOOK_ALLOW_PRIVATE',
  'WEBHOOK_HEALTH_NOTIFY_URL',
  'WEBHOOK_MAX_HELD_EVENTS',
] as const;

function webhookSettings(read: EnvReader, sandbox: boolean): Pick<ServerConfig, 'webhook' | 'webhookInsecureLocalhost'> {
  const webhookUrl = read.text('WEBHOOK_URL');
  const webhookInsecureLocalhost = read.flag('WEBHOOK_INSECURE_LOCALHOST');
  const settings = webhookInsecureLocalhost ? { webhookInsecureLocalhost } : {};
  if (!webhookUrl) {
    const orphan = WEBHOOK_DELIVERY_VARIABLES.find((name) => read.text(name) !== undefined);
    if (orphan)
      throw new OptionsError(`${orphan} is set but WEBHOOK_URL is not, so no event would be delivered: set WEBHOOK_URL, or unset ${orphan}.`, {
        option: orphan,
      });
    return settings;
  }
  const allowPrivate = read.flag('WEBHOOK_ALLOW_PRIVATE');
  // Source spec §6 rule 1: HTTPS only; plain HTTP stays refused even with WEBHOOK_ALLOW_PRIVATE.
  // Only a loopback receiver may use http://, with WEBHOOK_INSECURE_LOCALHOST=1 or in the
  // sandbox (x-decisions: sandbox-webhooks in spec/sandbox.yaml).
  const check = validateWebhookUrl(webhookUrl, {
    allowPrivate,
    allowLoopbackHttp: sandbox || webhookInsecureLocalhost,
    loopbackHttpHint: 'For a receiver on a loopback host, set WEBHOOK_INSECURE_LOCALHOST=1 (local testing only).',
  });
  if (!check.ok) throw new OptionsError(`WEBHOOK_URL is refused: ${check.reason}`, { option: 'WEBHOOK_URL' });
  const caFile = read.text('WEBHOOK_CA_FILE');
  const concurrency = read.integer('WEBHOOK_CONCURRENCY', ENVIRONMENT.WEBHOOK_CONCURRENCY.default, 1, 1000);
  const maxHeldEvents = read.integer('WEBHOOK_MAX_HELD_EVENTS', ENVIRONMENT.WEBHOOK_MAX_HELD_EVENTS.default, 1, 10_000_000);
  const insecureLocalhost = check.url.protocol === 'http:';
  const notifyUrl = notifySetting(read, { allowPrivate, allowLoopbackHttp: sandbox || webhookInsecureLocalhost });
  const webhook = {
    url: check.url.href,
    ...(notifyUrl ? { notifyUrl } : {}),
    allowPrivate,
    ...(caFile ? { caFile } : {}),
    ...webhookDelivery(read),
    concurrency,
    maxHeldEvents,
    ...(insecureLocalhost ? { insecureLocalhost } : {}),
  };
  return { webhook, ...settings };
}

/** WEBHOOK_HEALTH_NOTIFY_URL, checked as WEBHOOK_URL is. */
function notifySetting(read: EnvReader, rules: { allowPrivate: boolean; allowLoopbackHttp: boolean }): string | undefined {
  const text = read.text('WEBHOOK_HEALTH_NOTIFY_URL');
  if (text === undefined) return undefined;
  const check = validateWebhookUrl(text, rules);
  if (!check.ok) throw new OptionsError(`WEBHOOK_HEALTH_NOTIFY_URL is refused: ${check.reason}`, { option: 'WEBHOOK_HEALTH_NOTIFY_URL' });
  return check.url.href;
}

/** The metrics listener, the rate limit and CORS. */
function httpSettings(read: EnvReader, sandbox: boolean): Pick<ServerConfig, 'metricsPort' | 'rateLimit' | 'corsOrigins'> {
  const metricsPort = read.text('METRICS_PORT') === undefined ? undefined : read.integer('METRICS_PORT', 0, 0, 65535);
  const limit = read.integer('RATE_LIMIT', 0, 0);
  const rateLimit = limit > 0 ? { limit, windowMs: read.integer('RATE_LIMIT_WINDOW_MS', ENVIRONMENT.RATE_LIMIT_WINDOW_MS.default, 1, 86_400_000) } : undefined;
  // The sandbox serves pages on any origin unless told otherwise.
  const corsOrigins = read.list('CORS_ORIGINS').length || !sandbox ? read.list('CORS_ORIGINS') : ['*'];
  for (const origin of corsOrigins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new OptionsError(`CORS_ORIGINS entry "${origin}" must be an origin like https://app.example.org (no path) or *.`, { option: 'CORS_ORIGINS' });
    }
  }
  return { ...(metricsPort === undefined ? {} : { metricsPort }), ...(rateLimit ? { rateLimit } : {}), corsOrigins };
}

function logSettings(read: EnvReader): Pick<ServerConfig, 'logLevel' | 'validateResponses'> {
  const logLevel = read.text('LOG_LEVEL') ?? ENVIRONMENT.LOG_LEVEL.default;
  if (!LOG_LEVELS.includes(logLevel)) throw new OptionsError(`LOG_LEVEL=${logLevel} must be one of ${LOG_LEVELS.join(', ')}.`, { option: 'LOG_LEVEL' });
  const validateResponses = read.text('VALIDATE_RESPONSES') === undefined ? read.text('NODE_ENV') !== 'production' : read.flag('VALIDATE_RESPONSES');
  return { logLevel, validateResponses };
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
      throw new OptionsError(`REDIS_CLUSTER_NODES entry "${entry}" must be host:port (for example 10.0.0.5:7000 or [::1]:7000), comma-separated, no scheme.`, {
        option: 'REDIS_CLUSTER_NODES',
      });
    }
  }
  return entries;
}

/**
 * WEBHOOK_SECRET: one `whsec_` secret or several, comma-separated (a rotation: each signs every
 * delivery). A blank entry, a repeated one or a malformed one is refused, naming the variable.
 */
function webhookSecrets(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const secrets = text.split(',').map((s) => s.trim());
  if (secrets.some((s) => s === ''))
    throw new OptionsError('WEBHOOK_SECRET is refused: it has a blank entry; give whsec_ secrets separated by single commas.', { option: 'WEBHOOK_SECRET' });
  if (new Set(secrets).size !== secrets.length) throw new OptionsError('WEBHOOK_SECRET is refused: a secret is listed twice.', { option: 'WEBHOOK_SECRET' });
  try {
    createWebhookHeaders({ secret: secrets });
  } catch (err) {
    throw new OptionsError(`WEBHOOK_SECRET is refused: ${(err as Error).message}`, { option: 'WEBHOOK_SECRET', cause: err });
  }
  return secrets;
}

/** WEBHOOK_SECRET, WEBHOOK_RETRY_SCHEDULE and WEBHOOK_WORKER, checked. */
function webhookDelivery(read: EnvReader) {
  const secret = webhookSecrets(read.text('WEBHOOK_SECRET'));
  const scheduleText = read.text('WEBHOOK_RETRY_SCHEDULE');
  let schedule = [...STANDARD_WEBHOOKS_SCHEDULE_MS];
  if (scheduleText !== undefined) {
    try {
      schedule = parseRetrySchedule(scheduleText);
    } catch (err) {
      throw new OptionsError(`WEBHOOK_RETRY_SCHEDULE=${scheduleText}: ${(err as Error).message}`, { option: 'WEBHOOK_RETRY_SCHEDULE', cause: err });
    }
  }
  const worker = read.env.WEBHOOK_WORKER === undefined ? true : read.flag('WEBHOOK_WORKER');
  return { ...(secret ? { secret } : {}), schedule, worker };
}

/** `1`, `true`, `yes` (any case) are on; unset, `0`, `false`, `no` are off; anything else is an error. */
function flag(env: Env, name: string): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw || ['0', 'false', 'no'].includes(raw)) return false;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  throw new OptionsError(`${name}=${env[name]} must be 1 or 0.`, { option: name });
}
