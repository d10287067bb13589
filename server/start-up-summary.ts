/**
 * What the server says once at start about webhook delivery: where events go (the target's
 * origin only, since its path or query may hold the receiver's secret token), on what
 * schedule, whether they are signed, and which process delivers them.
 */
import type { ServerConfig } from './config.js';

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

/** Which process delivers: this one, or separate `worker` processes (WEBHOOK_WORKER=0 on Redis). */
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
      message: config.sandbox ? 'webhooks: off (WEBHOOK_URL unset); events go to each world\'s feed only' : 'webhooks: off (WEBHOOK_URL unset)',
    };
  }
  const target = new URL(webhook.url).origin;
  const schedule = formatSchedule(webhook.schedule);
  const signing = webhook.secret ? 'on' : 'off';
  const delivery = deliveredBy(config);
  return {
    fields: { target, schedule, attempts: webhook.schedule.length, signing, delivery },
    message: `webhooks to ${target}, schedule ${schedule}, ${signing === 'on' ? 'signed' : 'unsigned (WEBHOOK_SECRET unset)'}, delivered by ${delivery}`,
  };
}
