/**
 * Every refusal of loadConfig names the variable it refuses (`OptionsError.option`, which the
 * start-up message and a supervisor read), and the settings around WEBHOOK_HEALTH_NOTIFY_URL and
 * REDIS_URL that no other unit test reaches: the notify URL checked as WEBHOOK_URL is (private and
 * loopback rules), an upper-case scheme, a trailing slash, an IPv6 host.
 */
import { describe, expect, it } from 'vitest';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { loadConfig, parseRedisUrl } from '../../../server/config.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const HOOK = { WEBHOOK_URL: 'https://hooks.example.com/in' };

/** The error loadConfig throws for `env`. */
function refusal(env: Record<string, string>, flags: { sandbox?: boolean } = {}): OptionsError {
  try {
    loadConfig(env, flags);
  } catch (error) {
    if (error instanceof OptionsError) return error;
    throw error;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('each refusal names its variable', () => {
  const cases: Array<[Record<string, string>, string, RegExp, { sandbox?: boolean }?]> = [
    [{ HOST: '[::1]' }, 'HOST', /^HOST=\[::1\] must be a bare address/],
    [{ API_KEYS: 'key with space' }, 'API_KEYS', /^API_KEYS holds a key with characters a Bearer token cannot carry/],
    [{ REDIS_URL: 'redis://cache:6379' }, 'REDIS_URL', /^REDIS_URL is set, but the sandbox keeps its worlds in memory/, { sandbox: true }],
    [{ REDIS_URL: 'redis://cache:6379', REDIS_CLUSTER_NODES: 'cache:7000' }, 'REDIS_URL', /^Set REDIS_URL \(one Redis\) or REDIS_CLUSTER_NODES/],
    [{ REDIS_URL: 'http://cache:6379' }, 'REDIS_URL', /^REDIS_URL=http:\/\/cache:6379 must start with redis:\/\/ or rediss:\/\/\.$/],
    [{ REDIS_URL: 'xredis://cache:6379' }, 'REDIS_URL', /must start with redis:\/\//],
    [{ REDIS_URL: 'redis://cache:99999' }, 'REDIS_URL', /is not a valid URL: check the port/],
    [{ REDIS_URL: 'redis://cache:0' }, 'REDIS_URL', /port 0 is not a Redis port/],
    [{ REDIS_URL: 'redis://cache:6379/x' }, 'REDIS_URL', /the database after the host must be a number/],
    [{ REDIS_URL: 'REDIS://:6379' }, 'REDIS_URL', /^REDIS_URL=REDIS:\/\/:6379 has no host/],
    [{ REDIS_CLUSTER_NODES: 'redis://cache:7000' }, 'REDIS_CLUSTER_NODES', /^REDIS_CLUSTER_NODES entry "redis:\/\/cache:7000" must be host:port/],
    [{ WEBHOOK_SECRET: SECRET }, 'WEBHOOK_SECRET', /^WEBHOOK_SECRET is set but WEBHOOK_URL is not/],
    [{ WEBHOOK_HEALTH_NOTIFY_URL: 'https://ops.example.com/n' }, 'WEBHOOK_HEALTH_NOTIFY_URL', /^WEBHOOK_HEALTH_NOTIFY_URL is set but WEBHOOK_URL is not/],
    [{ WEBHOOK_URL: 'http://hooks.example.com/in' }, 'WEBHOOK_URL', /^WEBHOOK_URL is refused: /],
    [{ ...HOOK, WEBHOOK_HEALTH_NOTIFY_URL: 'http://ops.example.com/n' }, 'WEBHOOK_HEALTH_NOTIFY_URL', /^WEBHOOK_HEALTH_NOTIFY_URL is refused: /],
    [{ CORS_ORIGINS: 'https://app.example.org/path' }, 'CORS_ORIGINS', /^CORS_ORIGINS entry "https:\/\/app.example.org\/path" must be an origin/],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /^LOG_LEVEL=loud must be one of/],
    [{ ...HOOK, WEBHOOK_SECRET: `${SECRET},,${SECRET}` }, 'WEBHOOK_SECRET', /it has a blank entry/],
    [{ ...HOOK, WEBHOOK_SECRET: `${SECRET},${SECRET}` }, 'WEBHOOK_SECRET', /a secret is listed twice/],
    [{ ...HOOK, WEBHOOK_SECRET: 'whsec_short' }, 'WEBHOOK_SECRET', /^WEBHOOK_SECRET is refused: /],
    [{ ...HOOK, WEBHOOK_RETRY_SCHEDULE: 'soon' }, 'WEBHOOK_RETRY_SCHEDULE', /^WEBHOOK_RETRY_SCHEDULE=soon: /],
    [{ WEBHOOK_INSECURE_LOCALHOST: 'maybe' }, 'WEBHOOK_INSECURE_LOCALHOST', /^WEBHOOK_INSECURE_LOCALHOST=maybe must be 1 or 0\.$/],
  ];
  it.each(cases)('%j refused as %s', (env, option, message, flags) => {
    const error = refusal(env, flags);
    expect(error.option).toBe(option);
    expect(error.message).toMatch(message);
  });

  it("refuses a WEBHOOK_SECRET the signer refuses with the signer's error as its cause", () => {
    expect(refusal({ ...HOOK, WEBHOOK_SECRET: 'whsec_short' }).cause).toBeInstanceOf(Error);
    expect(refusal({ ...HOOK, WEBHOOK_RETRY_SCHEDULE: 'soon' }).cause).toBeInstanceOf(Error);
  });
});

describe('WEBHOOK_HEALTH_NOTIFY_URL', () => {
  it('is kept, as a URL, beside WEBHOOK_URL', () => {
    expect(loadConfig({ ...HOOK, WEBHOOK_HEALTH_NOTIFY_URL: 'https://ops.example.com/notify' }).webhook?.notifyUrl).toBe('https://ops.example.com/notify');
    expect(loadConfig(HOOK).webhook).not.toHaveProperty('notifyUrl');
  });

  it('takes a private address only with WEBHOOK_ALLOW_PRIVATE', () => {
    const env = { ...HOOK, WEBHOOK_HEALTH_NOTIFY_URL: 'https://10.0.0.8/notify' };
    expect(refusal(env).option).toBe('WEBHOOK_HEALTH_NOTIFY_URL');
    expect(loadConfig({ ...env, WEBHOOK_ALLOW_PRIVATE: '1' }).webhook?.notifyUrl).toBe('https://10.0.0.8/notify');
  });

  it('takes http:// on a loopback host only with WEBHOOK_INSECURE_LOCALHOST or in the sandbox', () => {
    const env = { ...HOOK, WEBHOOK_HEALTH_NOTIFY_URL: 'http://127.0.0.1:9000/notify' };
    expect(refusal(env).option).toBe('WEBHOOK_HEALTH_NOTIFY_URL');
    expect(loadConfig({ ...env, WEBHOOK_INSECURE_LOCALHOST: '1' }).webhook?.notifyUrl).toBe('http://127.0.0.1:9000/notify');
    expect(loadConfig(env, { sandbox: true }).webhook?.notifyUrl).toBe('http://127.0.0.1:9000/notify');
  });
});

describe('parseRedisUrl', () => {
  it('takes the scheme in any case, a trailing slash as database 0, and an IPv6 host without brackets', () => {
    expect(parseRedisUrl('REDIS://cache:6380')).toEqual({ host: 'cache', port: 6380, db: 0, tls: false });
    expect(parseRedisUrl('Rediss://cache:6380/')).toEqual({ host: 'cache', port: 6380, db: 0, tls: true });
    expect(parseRedisUrl('redis://[::1]:6379/3')).toEqual({ host: '::1', port: 6379, db: 3, tls: false });
    expect(parseRedisUrl('redis://cache:6379?db=4')).toMatchObject({ db: 4 });
  });

  it('refuses a host that is only a tab, which URL drops', () => {
    expect(() => parseRedisUrl('redis://\t/0')).toThrow(/has no host/);
    expect(() => parseRedisUrl('redis://\t/0')).toThrow(expect.objectContaining({ option: 'REDIS_URL' }));
  });

  it('names the variable it was given', () => {
    expect(() => parseRedisUrl('http://cache', 'SESSIONS_REDIS_URL')).toThrow(expect.objectContaining({ option: 'SESSIONS_REDIS_URL' }));
  });
});
