/**
 * Whole-number settings and their limits, flags, origins and Redis seeds as loadConfig reads
 * them: a value is accepted up to and including its maximum, and refused, naming the
 * variable, when it is not a whole number.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { loadConfig, redisTargetOf } from '../../../server/config.js';
import { ENDPOINT_HEALTH_POLICY } from '../../../server/webhooks/endpoint-health-policy.js';
import { endpointHealthSettings } from '../../../server/start-up/endpoint-notice-runtime.js';

const WEBHOOK = { WEBHOOK_URL: 'https://hooks.example.org/in' };

describe('whole-number settings', () => {
  it('refuses a fraction, trailing junk, a sign or an exponent, naming the variable and its range', () => {
    for (const bad of ['1.5', '80abc', 'abc80', '+80', '-1', '1e3', '0x50', '8 0']) {
      expect(() => loadConfig({ PORT: bad }), bad).toThrow(new OptionsError(`PORT=${bad} must be a whole number from 0 to 65535.`, { option: 'PORT' }));
    }
  });

  it('accepts each maximum and refuses one more', () => {
    const limits: [string, number, Record<string, string>][] = [
      ['PORT', 65_535, {}],
      ['REDIS_WAIT_REPLICAS', 16, {}],
      ['IDEMPOTENCY_TTL', 30 * 86_400, {}],
      ['IDEMPOTENCY_MAX_KEYS', 100_000_000, {}],
      ['SANDBOX_MAX_SESSIONS', 1_000_000, {}],
      ['METRICS_PORT', 65_535, {}],
      ['WEBHOOK_CONCURRENCY', 1000, WEBHOOK],
      ['WEBHOOK_MAX_HELD_EVENTS', 10_000_000, WEBHOOK],
      ['RATE_LIMIT_WINDOW_MS', 86_400_000, { RATE_LIMIT: '5' }],
    ];
    for (const [name, max, extra] of limits) {
      expect(() => loadConfig({ ...extra, [name]: String(max) }), name).not.toThrow();
      expect(() => loadConfig({ ...extra, [name]: String(max + 1) }), name).toThrow(`${name}=${max + 1} must be a whole number from`);
    }
    const config = loadConfig({ ...WEBHOOK, PORT: '65535', WEBHOOK_CONCURRENCY: '1000', METRICS_PORT: '0', RATE_LIMIT: '5', RATE_LIMIT_WINDOW_MS: '86400000' });
    expect(config).toMatchObject({ port: 65_535, metricsPort: 0, rateLimit: { limit: 5, windowMs: 86_400_000 } });
    expect(config.webhook?.concurrency).toBe(1000);
  });

  it('accepts each minimum and refuses one less', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
    expect(loadConfig({ ...WEBHOOK, WEBHOOK_CONCURRENCY: '1' }).webhook?.concurrency).toBe(1);
    expect(() => loadConfig({ ...WEBHOOK, WEBHOOK_CONCURRENCY: '0' })).toThrow('WEBHOOK_CONCURRENCY=0 must be a whole number from 1 to 1000.');
    expect(() => loadConfig({ IDEMPOTENCY_TTL: '0' })).toThrow('IDEMPOTENCY_TTL=0 must be a whole number from 1 to 2592000.');
  });

  it("sizes the held backlog with WEBHOOK_MAX_HELD_EVENTS, the contract's figure by default; blank or malformed is refused naming it", () => {
    expect(loadConfig(WEBHOOK).webhook?.maxHeldEvents).toBe(ENDPOINT_HEALTH_POLICY.maxHeldEvents);
    expect(loadConfig({ ...WEBHOOK, WEBHOOK_MAX_HELD_EVENTS: '1' }).webhook?.maxHeldEvents).toBe(1);
    expect(loadConfig({ ...WEBHOOK, WEBHOOK_MAX_HELD_EVENTS: '250000' }).webhook?.maxHeldEvents).toBe(250_000);
    for (const bad of ['0', 'many', '1.5', '-3']) {
      expect(() => loadConfig({ ...WEBHOOK, WEBHOOK_MAX_HELD_EVENTS: bad }), bad).toThrow(
        new OptionsError(`WEBHOOK_MAX_HELD_EVENTS=${bad} must be a whole number from 1 to 10000000.`, { option: 'WEBHOOK_MAX_HELD_EVENTS' }),
      );
    }
    expect(() => loadConfig({ ...WEBHOOK, WEBHOOK_MAX_HELD_EVENTS: '  ' })).toThrow(/^WEBHOOK_MAX_HELD_EVENTS is set but blank/);
    expect(() => loadConfig({ WEBHOOK_MAX_HELD_EVENTS: '5' })).toThrow(/^WEBHOOK_MAX_HELD_EVENTS is set but WEBHOOK_URL is not/);
    // The delivery's circuit gets it, with every other figure the contract's.
    const logger = pino({ enabled: false });
    for (const extra of [{}, { WEBHOOK_HEALTH_NOTIFY_URL: 'https://ops.example.org/notices' }]) {
      const { endpointHealth } = endpointHealthSettings(loadConfig({ ...WEBHOOK, ...extra, WEBHOOK_MAX_HELD_EVENTS: '7' }).webhook, undefined, logger);
      expect(endpointHealth && endpointHealth.policy).toEqual({ ...ENDPOINT_HEALTH_POLICY, maxHeldEvents: 7 });
    }
  });

  it('reads a setting with spaces around it, and a blank one as unset', () => {
    expect(loadConfig({ PORT: ' 8080 ' }).port).toBe(8080);
    expect(loadConfig({ PORT: '   ' }).port).toBe(3000);
  });
});

describe('other settings', () => {
  it('reads flags as 1/true/yes and 0/false/no in any case, and refuses anything else', () => {
    for (const on of ['1', 'true', 'YES', ' Yes ']) expect(loadConfig({ ...WEBHOOK, WEBHOOK_ALLOW_PRIVATE: on }).webhook?.allowPrivate, on).toBe(true);
    for (const off of ['0', 'false', 'No', '']) expect(loadConfig({ ...WEBHOOK, WEBHOOK_ALLOW_PRIVATE: off }).webhook?.allowPrivate, off).toBe(false);
    expect(() => loadConfig({ ...WEBHOOK, WEBHOOK_ALLOW_PRIVATE: 'on' })).toThrow('WEBHOOK_ALLOW_PRIVATE=on must be 1 or 0.');
    expect(loadConfig({ ...WEBHOOK, WEBHOOK_WORKER: '0' }).webhook?.worker).toBe(false);
    expect(loadConfig(WEBHOOK).webhook?.worker).toBe(true);
  });

  it('knows every log level and refuses another', () => {
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).toThrow('LOG_LEVEL=verbose must be one of fatal, error, warn, info, debug, trace, silent.');
  });

  it('accepts CORS origins without a path only', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example.org, http://localhost:5173,*' }).corsOrigins).toEqual([
      'https://a.example.org',
      'http://localhost:5173',
      '*',
    ]);
    for (const bad of ['https://a.example.org/app', 'a.example.org', 'xhttps://a.example.org', 'ftp://a.example.org']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(OptionsError);
    }
  });

  it('accepts a plain http://localhost webhook with the loopback allowance, but never with credentials', () => {
    expect(loadConfig({ WEBHOOK_URL: 'http://localhost:4000/in', WEBHOOK_INSECURE_LOCALHOST: '1' }).webhook).toMatchObject({
      url: 'http://localhost:4000/in',
      insecureLocalhost: true,
    });
    expect(() => loadConfig({ WEBHOOK_URL: 'http://user@localhost/in', WEBHOOK_INSECURE_LOCALHOST: '1' })).toThrow(
      /WEBHOOK_URL is refused: Webhook URLs must not contain credentials/,
    );
    expect(loadConfig(WEBHOOK).webhook).not.toHaveProperty('insecureLocalhost');
  });

  it('says where Redis is: the cluster seeds, else the URL, else nowhere', () => {
    expect(redisTargetOf(loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.5:7000,[::1]:7001' }))).toEqual({ clusterNodes: ['10.0.0.5:7000', '[::1]:7001'] });
    expect(redisTargetOf(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }))).toEqual({ url: 'redis://127.0.0.1:6379' });
    expect(redisTargetOf(loadConfig({}))).toBeUndefined();
  });

  it('refuses a cluster seed without a port in 1..65535 or with a scheme', () => {
    expect(loadConfig({ REDIS_CLUSTER_NODES: 'a:1,b:65535' }).redisClusterNodes).toEqual(['a:1', 'b:65535']);
    for (const bad of ['a:0', 'a:65536', 'redis://a:7000', 'a', 'a:7000x', 'xa b:7000']) {
      expect(() => loadConfig({ REDIS_CLUSTER_NODES: bad }), bad).toThrow(/REDIS_CLUSTER_NODES entry/);
    }
  });
});
