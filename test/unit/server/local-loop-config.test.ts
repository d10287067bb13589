/**
 * The local webhook loop's rules: WEBHOOK_INSECURE_LOCALHOST=1 lets a plain http:// WEBHOOK_URL
 * through for loopback hosts only, in every mode; a refusal of http:// on loopback names the
 * flag; the start-up line names the target's origin only, the schedule, signing and the deliverer.
 */
import { describe, expect, it } from 'vitest';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { loadConfig } from '../../../server/config.js';
import { formatSchedule, webhookStartUpLine } from '../../../server/start-up-summary.js';
import { isLoopbackHost, validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';

const SECRET = `whsec_${Buffer.from('local-loop-test-secret-0123456789').toString('base64')}`;

describe('WEBHOOK_INSECURE_LOCALHOST', () => {
  it.each(['http://127.0.0.1:3001/hooks', 'http://127.5.6.7/x', 'http://localhost:3001/x', 'http://app.localhost/x', 'http://[::1]:3001/x'])(
    'accepts %s with the flag, on memory and on Redis, and marks it insecureLocalhost',
    (url) => {
      for (const extra of [{}, { REDIS_URL: 'redis://127.0.0.1:6379' }]) {
        const config = loadConfig({ WEBHOOK_URL: url, WEBHOOK_INSECURE_LOCALHOST: '1', ...extra });
        expect(config.webhook).toMatchObject({ insecureLocalhost: true });
        expect(config.webhookInsecureLocalhost).toBe(true);
      }
    },
  );

  it.each(['http://10.0.0.5/x', 'http://hooks.example.org/x', 'http://0.0.0.0:3001/x', 'http://[::]:3001/x', 'http://192.168.1.2/x'])(
    'still refuses %s with the flag (WEBHOOK_ALLOW_PRIVATE too)',
    (url) => {
      expect(() => loadConfig({ WEBHOOK_URL: url, WEBHOOK_INSECURE_LOCALHOST: '1', WEBHOOK_ALLOW_PRIVATE: '1' })).toThrow(/must use HTTPS/);
    },
  );

  it('refuses http:// on loopback without the flag, naming it; other hosts are not told about it', () => {
    expect(() => loadConfig({ WEBHOOK_URL: 'http://127.0.0.1:3001/x' })).toThrow(OptionsError);
    expect(() => loadConfig({ WEBHOOK_URL: 'http://localhost:3001/x' })).toThrow(/set WEBHOOK_INSECURE_LOCALHOST=1/);
    expect(() => loadConfig({ WEBHOOK_URL: 'http://hooks.example.org/x' })).toThrow(/^(?!.*WEBHOOK_INSECURE_LOCALHOST).*must use HTTPS/s);
  });

  it('leaves https:// URLs as they were: loopback https still needs WEBHOOK_ALLOW_PRIVATE', () => {
    expect(() => loadConfig({ WEBHOOK_URL: 'https://127.0.0.1:8443/x', WEBHOOK_INSECURE_LOCALHOST: '1' })).toThrow(/loopback/);
    const config = loadConfig({ WEBHOOK_URL: 'https://hooks.example.org/x', WEBHOOK_INSECURE_LOCALHOST: '1' });
    expect(config.webhook?.insecureLocalhost).toBeUndefined();
  });

  it('is off by default and refuses a value that is not 1 or 0', () => {
    expect(loadConfig({}).webhookInsecureLocalhost).toBeUndefined();
    expect(() => loadConfig({ WEBHOOK_INSECURE_LOCALHOST: 'maybe' })).toThrow(/WEBHOOK_INSECURE_LOCALHOST=maybe must be 1 or 0/);
  });
});

describe('isLoopbackHost and the loopback hint', () => {
  it('knows 127.0.0.0/8, ::1 and localhost names, not the unspecified address', () => {
    for (const host of ['127.0.0.1', '127.255.0.1', '[::1]', 'localhost', 'a.localhost', 'LOCALHOST.']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '[::]', '10.0.0.1', 'example.org', '[::ffff:10.0.0.1]']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('adds the hint only to an http:// refusal on a loopback host', () => {
    const hint = 'HINT';
    const loopback = validateWebhookUrl('http://127.0.0.1/x', { loopbackHttpHint: hint });
    const remote = validateWebhookUrl('http://hooks.example.org/x', { loopbackHttpHint: hint });
    expect(loopback.ok || loopback.reason.endsWith(' HINT')).toBe(true);
    expect(remote.ok || remote.reason.includes(hint)).toBe(false);
  });
});

describe('METRICS_PORT', () => {
  it('is off when unset, a port when set, refused otherwise', () => {
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(loadConfig({ METRICS_PORT: '0' }).metricsPort).toBe(0);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT=70000 must be a whole number from 0 to 65535/);
  });
});

describe('the webhook start-up line', () => {
  it('names the origin only, never a token in the path or query', () => {
    const config = loadConfig({ WEBHOOK_URL: 'https://hooks.example.org:8443/in/s3cr3t-token?key=qs3cr3t', WEBHOOK_SECRET: SECRET });
    const line = webhookStartUpLine(config);
    expect(line.message).toBe(
      'webhooks to https://hooks.example.org:8443, schedule 0s,5s,5m,30m,2h,5h,10h,14h,20h,1d, signed with 1 secret, delivered by this instance (in memory: events still pending at exit are lost)',
    );
    expect(JSON.stringify(line)).not.toMatch(/s3cr3t/);
    expect(line.fields).toMatchObject({ target: 'https://hooks.example.org:8443', signing: 'on', secrets: 1, attempts: 10 });
    const rotating = webhookStartUpLine(
      loadConfig({ WEBHOOK_URL: 'https://hooks.example.org/in', WEBHOOK_SECRET: `${SECRET},whsec_${Buffer.alloc(32, 9).toString('base64')}` }),
    );
    expect(rotating.message).toContain('signed with 2 secrets');
  });

  it('says unsigned, and who delivers on Redis', () => {
    const base = { WEBHOOK_URL: 'https://hooks.example.org/in', REDIS_URL: 'redis://127.0.0.1:6379', WEBHOOK_RETRY_SCHEDULE: '0,1500ms,2m' };
    expect(webhookStartUpLine(loadConfig(base)).message).toBe(
      'webhooks to https://hooks.example.org, schedule 0s,1500ms,2m, unsigned (WEBHOOK_SECRET unset), delivered by this instance',
    );
    expect(webhookStartUpLine(loadConfig({ ...base, WEBHOOK_WORKER: '0' })).fields).toMatchObject({
      delivery: 'separate worker processes (session-resume-api-server worker)',
    });
    expect(webhookStartUpLine(loadConfig({})).message).toBe('webhooks: off (WEBHOOK_URL unset)');
  });

  it('writes a schedule the way WEBHOOK_RETRY_SCHEDULE reads it', () => {
    expect(formatSchedule([0, 5000, 300_000, 7_200_000, 86_400_000, 250])).toBe('0s,5s,5m,2h,1d,250ms');
  });
});
