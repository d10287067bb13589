/** WEBHOOK_SECRET, WEBHOOK_RETRY_SCHEDULE and WEBHOOK_WORKER; the schedule parser; the Standard Webhooks headers. */
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config.js';
import { parseRetrySchedule, scheduledDelayMs, nextStep, STANDARD_WEBHOOKS_SCHEDULE_MS } from '@session-resume-api/runtime/delivery/retry-rules';
import { createWebhookHeaders } from '@session-resume-api/runtime/delivery/webhook-headers';
import { OptionsError } from '@session-resume-api/runtime/options-error';

const URL_ENV = { WEBHOOK_URL: 'https://hooks.example.org/in' };
const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

describe('webhook delivery config', () => {
  it('defaults to the Standard Webhooks example schedule (10 attempts over about 3 days) and an in-process worker', () => {
    const { webhook } = loadConfig(URL_ENV);
    expect(webhook?.schedule).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400].map((s) => s * 1000));
    expect(webhook?.worker).toBe(true);
    expect(webhook?.secret).toBeUndefined();
  });

  it('reads WEBHOOK_RETRY_SCHEDULE, WEBHOOK_SECRET and WEBHOOK_WORKER', () => {
    const { webhook } = loadConfig({ ...URL_ENV, WEBHOOK_RETRY_SCHEDULE: '0,1s,2s,5m', WEBHOOK_SECRET: SECRET, WEBHOOK_WORKER: '0' });
    expect(webhook).toMatchObject({ schedule: [0, 1000, 2000, 300_000], secret: [SECRET], worker: false });
  });

  it('reads several comma-separated secrets (rotation) and refuses a blank, repeated or malformed one, naming the variable', () => {
    const next = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(loadConfig({ ...URL_ENV, WEBHOOK_SECRET: `${SECRET}, ${next}` }).webhook?.secret).toEqual([SECRET, next]);
    expect(() => loadConfig({ ...URL_ENV, WEBHOOK_SECRET: `${SECRET},` })).toThrow(/WEBHOOK_SECRET is refused: it has a blank entry/);
    expect(() => loadConfig({ ...URL_ENV, WEBHOOK_SECRET: `${SECRET},${SECRET}` })).toThrow(/WEBHOOK_SECRET is refused: a secret is listed twice/);
    expect(() => loadConfig({ ...URL_ENV, WEBHOOK_SECRET: `${SECRET},whsec_c2hvcnQ=` })).toThrow(
      /WEBHOOK_SECRET is refused: Webhook secret 2 of 2 must be whsec_/,
    );
  });

  it('refuses a bad schedule or secret, naming the variable', () => {
    expect(() => loadConfig({ ...URL_ENV, WEBHOOK_RETRY_SCHEDULE: '0,soon' })).toThrow(/WEBHOOK_RETRY_SCHEDULE=0,soon/);
    expect(() => loadConfig({ ...URL_ENV, WEBHOOK_SECRET: 'hunter2' })).toThrow(OptionsError);
    expect(() => loadConfig({ ...URL_ENV, WEBHOOK_SECRET: 'whsec_c2hvcnQ=' })).toThrow(/WEBHOOK_SECRET/);
  });
});

describe('parseRetrySchedule', () => {
  it('reads units ms, s, m, h, d and bare seconds', () => {
    expect(parseRetrySchedule('0, 250ms, 5, 5s, 1.5m, 2h, 1d')).toEqual([0, 250, 5000, 5000, 90_000, 7_200_000, 86_400_000]);
    expect(STANDARD_WEBHOOKS_SCHEDULE_MS).toHaveLength(10);
  });

  it('any text either parses to whole non-negative delays or throws OptionsError (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        try {
          const schedule = parseRetrySchedule(text);
          return schedule.length > 0 && schedule.every((ms) => Number.isInteger(ms) && ms >= 0);
        } catch (error) {
          return error instanceof OptionsError && error.option === 'schedule';
        }
      }),
    );
  });
});

describe('Standard Webhooks headers', () => {
  it('signs id.timestamp.body so that standardwebhooks verifies it; a tampered body fails', () => {
    const headers = createWebhookHeaders({ secret: SECRET })('msg_1', '{"event":"session.resumed"}');
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-signature']).toMatch(/^v1,/);
    expect(new Webhook(SECRET).verify('{"event":"session.resumed"}', headers)).toEqual({ event: 'session.resumed' });
    expect(() => new Webhook(SECRET).verify('{"event":"session.paused"}', headers)).toThrow();
  });

  it('without a secret sends id and timestamp only; refuses a secret that is not whsec_ + base64', () => {
    expect(Object.keys(createWebhookHeaders()('msg_2', '{}')).sort()).toEqual(['webhook-id', 'webhook-timestamp']);
    expect(() => createWebhookHeaders({ secret: 'not-a-secret' })).toThrow(OptionsError);
  });
});

describe('delivery retry delays', () => {
  it('follow the schedule, never earlier than Retry-After, and stay on the last entry', () => {
    const schedule = [0, 5000, 300_000];
    expect(scheduledDelayMs(schedule, 1)).toBe(5000);
    expect(scheduledDelayMs(schedule, 1, 60_000)).toBe(60_000);
    expect(scheduledDelayMs(schedule, 2, 60_000)).toBe(300_000);
    expect(scheduledDelayMs(schedule, 9)).toBe(300_000);
  });
});

describe('nextStep', () => {
  const schedule = [0, 5000, 300_000];
  it('ends the event at once on 410 Gone', () => {
    expect(nextStep(schedule, 1, { status: 410 })).toEqual({ kind: 'dead', reason: 'gone' });
  });
  it('ends the event when the schedule is run out', () => {
    expect(nextStep(schedule, 3, { status: 500 })).toEqual({ kind: 'dead', reason: 'exhausted' });
  });
  it('waits the scheduled delay, or longer when 429/503 asks with Retry-After', () => {
    expect(nextStep(schedule, 1, { status: 500, retryAfter: '60' })).toEqual({ kind: 'retry', delayMs: 5000 });
    expect(nextStep(schedule, 1, { status: 503, retryAfter: '60' })).toEqual({ kind: 'retry', delayMs: 60_000 });
    expect(nextStep(schedule, 2, { status: 429, retryAfter: '1' })).toEqual({ kind: 'retry', delayMs: 300_000 });
    expect(nextStep(schedule, 1, {})).toEqual({ kind: 'retry', delayMs: 5000 });
  });
});
