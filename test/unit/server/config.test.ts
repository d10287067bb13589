import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { loadConfig, parseRedisUrl } from '../../../server/config.js';
import { STANDARD_WEBHOOKS_SCHEDULE_MS } from '@session-resume-api/runtime/delivery/retry-rules';

describe('loadConfig', () => {
  it('has the documented defaults: port 3000, loopback host, memory store, no webhook, no rate limit, no CORS', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, host: '127.0.0.1', apiKeyGenerated: true, corsOrigins: [], logLevel: 'info' });
    expect(config.redisUrl).toBeUndefined();
    expect(config.webhook).toBeUndefined();
    expect(config.rateLimit).toBeUndefined();
    expect(config.sessionsFile).toBeUndefined();
  });

  it('generates a random development key when API_KEYS is unset, a new one each time', () => {
    const a = loadConfig({}).apiKeys;
    const b = loadConfig({}).apiKeys;
    expect(a).toHaveLength(1);
    expect(a[0]).toMatch(/^dev_[\w-]{24}$/);
    expect(a[0]).not.toBe(b[0]);
  });

  it('refuses an API_KEYS that is set but blank or empty, instead of generating a key', () => {
    for (const blank of ['', ' ', ' , ', ',,']) {
      expect(() => loadConfig({ API_KEYS: blank }), JSON.stringify(blank)).toThrow(OptionsError);
      expect(() => loadConfig({ API_KEYS: blank })).toThrow(expect.objectContaining({ option: 'API_KEYS' }));
      expect(() => loadConfig({ API_KEYS: blank })).toThrow(/^API_KEYS is set but (blank|holds no key)/);
    }
  });

  it('refuses a target or a credential that is set but empty, naming it, rather than falling back', () => {
    for (const name of ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'WEBHOOK_URL', 'WEBHOOK_SECRET']) {
      expect(() => loadConfig({ [name]: '' }), name).toThrow(new RegExp(`^${name} is set but blank`));
      expect(() => loadConfig({ [name]: '  ' }), name).toThrow(OptionsError);
    }
  });

  it('refuses a REDIS_URL without a host, naming the variable, instead of connecting to 127.0.0.1:6379', () => {
    for (const url of ['redis://', 'redis:///0', 'rediss://', 'redis://:secret@']) {
      expect(() => loadConfig({ REDIS_URL: url }), url).toThrow(OptionsError);
      expect(() => loadConfig({ REDIS_URL: url }), url).toThrow(/^REDIS_URL=/);
    }
    expect(() => loadConfig({ REDIS_URL: 'redis://' })).toThrow(/has no host/);
    for (const noHost of ['redis://user:pw@', 'redis://:pw@:6379', 'redis://:6379', 'rediss://user@/0']) {
      expect(() => loadConfig({ REDIS_URL: noHost }), noHost).toThrow(/has no host: give one/);
      expect(() => loadConfig({ REDIS_URL: noHost }), noHost).not.toThrow(/pw/);
    }
  });

  it('names REDIS_URL for a malformed port, IPv6 bracket or database, and never shows its password', () => {
    const cases: [string, RegExp][] = [
      ['redis://:hunter2@cache:99999', /REDIS_URL=redis:\/\/cache:99999 is not a valid URL: check the port/],
      ['redis://:hunter2@cache:port', /REDIS_URL=.* is not a valid URL/],
      ['redis://:hunter2@[::1:6379', /REDIS_URL=.* is not a valid URL.*brackets/],
      ['redis://:hunter2@cache:0', /REDIS_URL=redis:\/\/cache:0: port 0/],
      ['redis://:hunter2@cache:6379/main', /REDIS_URL=.*database after the host must be a number/],
    ];
    for (const [url, message] of cases) {
      let error: unknown;
      try {
        loadConfig({ REDIS_URL: url });
      } catch (err) {
        error = err;
      }
      expect(error, url).toBeInstanceOf(OptionsError);
      expect((error as Error).message, url).toMatch(message);
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('reads where a REDIS_URL points as ioredis does: host, port, database, TLS', () => {
    expect(parseRedisUrl('redis://:pw@cache:6380/2')).toEqual({ host: 'cache', port: 6380, db: 2, tls: false });
    expect(parseRedisUrl('rediss://[::1]')).toEqual({ host: '::1', port: 6379, db: 0, tls: true });
    expect(parseRedisUrl('redis://cache?db=3')).toEqual({ host: 'cache', port: 6379, db: 3, tls: false });
  });

  it('names HOST when it holds an IPv6 address in brackets', () => {
    expect(() => loadConfig({ HOST: '[::1]' })).toThrow(/^HOST=\[::1\] must be a bare address .* ::1/);
    expect(loadConfig({ HOST: '::1' }).host).toBe('::1');
  });

  it('listens on SANDBOX_PORT (default 3100) in the sandbox and on PORT (default 3000) otherwise, and says which', () => {
    expect(loadConfig({}, { sandbox: true })).toMatchObject({ port: 3100, portVariable: 'SANDBOX_PORT' });
    expect(loadConfig({ PORT: '4000', SANDBOX_PORT: '4100' }, { sandbox: true })).toMatchObject({ port: 4100, portVariable: 'SANDBOX_PORT' });
    expect(loadConfig({ PORT: '4000', SANDBOX_PORT: '4100' })).toMatchObject({ port: 4000, portVariable: 'PORT' });
    expect(() => loadConfig({ SANDBOX_PORT: 'x' }, { sandbox: true })).toThrow(/^SANDBOX_PORT=x must be a whole number/);
  });

  it('refuses a delivery setting without WEBHOOK_URL, naming both, rather than ignoring it', () => {
    for (const [name, value] of [
      ['WEBHOOK_RETRY_SCHEDULE', '0,5s'],
      ['WEBHOOK_SECRET', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      ['WEBHOOK_CONCURRENCY', '5'],
      ['WEBHOOK_WORKER', '0'],
      ['WEBHOOK_CA_FILE', '/etc/ca.pem'],
    ] as const) {
      expect(() => loadConfig({ [name]: value }), name).toThrow(new RegExp(`^${name} is set but WEBHOOK_URL is not`));
    }
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      API_KEYS: 'k1, k2,,',
      SESSIONS_FILE: './sessions.json',
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: 'x:',
      REDIS_WAIT_REPLICAS: '1',
      WEBHOOK_URL: 'https://hooks.example.org/in/abc',
      WEBHOOK_CONCURRENCY: '50',
      RATE_LIMIT: '10',
      RATE_LIMIT_WINDOW_MS: '1000',
      CORS_ORIGINS: 'https://a.example.org, http://localhost:5173',
      LOG_LEVEL: 'warn',
      VALIDATE_RESPONSES: '0',
      IDEMPOTENCY_TTL: '3600',
      IDEMPOTENCY_MAX_KEYS: '5000',
      SANDBOX_MAX_SESSIONS: '50',
    });
    expect(config).toEqual({
      port: 8080,
      portVariable: 'PORT',
      host: '0.0.0.0',
      apiKeys: ['k1', 'k2'],
      apiKeyGenerated: false,
      sessionsFile: './sessions.json',
      redisUrl: 'redis://127.0.0.1:6379',
      redisKeyPrefix: 'x:',
      redisWaitReplicas: 1,
      webhook: {
        url: 'https://hooks.example.org/in/abc',
        allowPrivate: false,
        schedule: STANDARD_WEBHOOKS_SCHEDULE_MS,
        worker: true,
        concurrency: 50,
        maxHeldEvents: 100_000,
      },
      rateLimit: { limit: 10, windowMs: 1000 },
      corsOrigins: ['https://a.example.org', 'http://localhost:5173'],
      logLevel: 'warn',
      validateResponses: false,
      sandbox: false,
      idempotency: { ttlSeconds: 3600, maxKeys: 5000 },
      sandboxMaxSessions: 50,
    });
  });

  it('keeps Idempotency-Keys 24 h, at most 100 000 in memory, and 1000 sessions per sandbox world by default', () => {
    expect(loadConfig({})).toMatchObject({ idempotency: { ttlSeconds: 86_400, maxKeys: 100_000 }, sandboxMaxSessions: 1000 });
    expect(() => loadConfig({ IDEMPOTENCY_TTL: '0' })).toThrow(/IDEMPOTENCY_TTL=0 must be a whole number from 1/);
    expect(() => loadConfig({ IDEMPOTENCY_MAX_KEYS: 'many' })).toThrow(OptionsError);
  });

  it('refuses an http:// webhook URL with a message that says webhook URLs must use HTTPS, even with WEBHOOK_ALLOW_PRIVATE', () => {
    for (const env of [{ WEBHOOK_URL: 'http://hooks.example.org/x' }, { WEBHOOK_URL: 'http://127.0.0.1:9/x', WEBHOOK_ALLOW_PRIVATE: '1' }]) {
      expect(() => loadConfig(env)).toThrow(OptionsError);
      expect(() => loadConfig(env)).toThrow(/Webhook URLs must use HTTPS/);
    }
  });

  it('refuses webhook URLs with credentials or private hosts; WEBHOOK_ALLOW_PRIVATE=1 allows loopback', () => {
    expect(() => loadConfig({ WEBHOOK_URL: 'https://u:p@hooks.example.org/x' })).toThrow(/credentials/);
    expect(() => loadConfig({ WEBHOOK_URL: 'https://127.0.0.1:8443/x' })).toThrow(/loopback/);
    expect(() => loadConfig({ WEBHOOK_URL: 'https://10.0.0.5/x' })).toThrow(/private/);
    expect(() => loadConfig({ WEBHOOK_URL: 'https://169.254.169.254/x', WEBHOOK_ALLOW_PRIVATE: '1' })).toThrow(OptionsError);
    const config = loadConfig({ WEBHOOK_URL: 'https://127.0.0.1:8443/x', WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_CA_FILE: '/tmp/ca.pem' });
    expect(config.webhook).toMatchObject({ url: 'https://127.0.0.1:8443/x', allowPrivate: true, caFile: '/tmp/ca.pem' });
  });

  it('names the variable and the fix for bad values', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PORT: 'abc' }, /PORT=abc must be a whole number from 0 to 65535/],
      [{ PORT: '70000' }, /PORT/],
      [{ RATE_LIMIT: '-1' }, /RATE_LIMIT/],
      [{ RATE_LIMIT: '5', RATE_LIMIT_WINDOW_MS: '0' }, /RATE_LIMIT_WINDOW_MS/],
      [{ REDIS_URL: 'localhost:6379' }, /REDIS_URL.*redis:\/\//],
      [{ API_KEYS: 'good,bad key' }, /API_KEYS/],
      [{ CORS_ORIGINS: 'https://a.example.org/path' }, /CORS_ORIGINS/],
      [{ WEBHOOK_ALLOW_PRIVATE: 'maybe', WEBHOOK_URL: 'https://hooks.example.org/x' }, /WEBHOOK_ALLOW_PRIVATE/],
      [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
      [{ REDIS_WAIT_REPLICAS: 'one' }, /REDIS_WAIT_REPLICAS=one must be a whole number from 0 to 16/],
    ];
    for (const [env, message] of cases) expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
  });

  it('RATE_LIMIT=0 keeps the rate limit off', () => {
    expect(loadConfig({ RATE_LIMIT: '0' }).rateLimit).toBeUndefined();
  });

  it('REDIS_CLUSTER_NODES takes comma-separated host:port seeds (IPv6 in brackets)', () => {
    const config = loadConfig({ REDIS_CLUSTER_NODES: ' 10.0.0.5:7000, redis-a.internal:7001,[::1]:7002 ' });
    expect(config.redisClusterNodes).toEqual(['10.0.0.5:7000', 'redis-a.internal:7001', '[::1]:7002']);
    expect(config.redisUrl).toBeUndefined();
    expect(loadConfig({}).redisClusterNodes).toBeUndefined();
  });

  it('REDIS_CLUSTER_NODES refuses entries that are not host:port, and cannot be combined with REDIS_URL', () => {
    for (const bad of ['redis://10.0.0.5:7000', '10.0.0.5', '10.0.0.5:0', '10.0.0.5:70000', 'a b:1', '::1:7000']) {
      expect(() => loadConfig({ REDIS_CLUSTER_NODES: bad }), bad).toThrow(/REDIS_CLUSTER_NODES entry .* must be host:port/);
    }
    expect(() => loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7000' })).toThrow(
      /REDIS_URL .* or REDIS_CLUSTER_NODES .*not both/,
    );
  });

  it('REDIS_CLUSTER_NODES: any text is either a list of host:port seeds or a OptionsError, never another error (property)', () => {
    const host = fc.oneof(
      fc.domain(),
      fc.ipV4(),
      fc.ipV6().map((ip) => `[${ip}]`),
    );
    const seed = fc.tuple(host, fc.integer({ min: 1, max: 65535 })).map(([h, p]) => `${h}:${p}`);
    fc.assert(
      fc.property(fc.array(seed, { minLength: 1, maxLength: 5 }), (seeds) => {
        expect(loadConfig({ REDIS_CLUSTER_NODES: seeds.join(',') }).redisClusterNodes).toEqual(seeds);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (raw) => {
        try {
          const nodes = loadConfig({ REDIS_CLUSTER_NODES: raw }).redisClusterNodes ?? [];
          for (const node of nodes) expect(node).toMatch(/:\d+$/);
        } catch (err) {
          expect(err).toBeInstanceOf(OptionsError);
        }
      }),
    );
  });

  it('checks answers against the spec except under NODE_ENV=production, unless VALIDATE_RESPONSES says otherwise', () => {
    expect(loadConfig({}).validateResponses).toBe(true);
    expect(loadConfig({ NODE_ENV: 'development' }).validateResponses).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).validateResponses).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', VALIDATE_RESPONSES: '1' }).validateResponses).toBe(true);
    expect(loadConfig({ VALIDATE_RESPONSES: 'no' }).validateResponses).toBe(false);
    expect(() => loadConfig({ VALIDATE_RESPONSES: 'sometimes' })).toThrow(/VALIDATE_RESPONSES=sometimes must be 1 or 0/);
  });
});
