/**
 * `listen --help` says the unit of --retry-schedule's delays (a bare number is seconds, unlike
 * the sandbox profile's retryScheduleMs) and names its default once.
 */
import { describe, expect, it } from 'vitest';
import { createListenCommand } from '../../cli/listen-command.js';

const ENV = { baseUrl: undefined, apiKey: undefined, webhookSecret: undefined };

describe('listen --help', () => {
  const help = createListenCommand(ENV).helpInformation().replace(/\s+/g, ' ');
  const option = /--retry-schedule <delays> (.*?)(?= --[a-z])/.exec(help)?.[1] ?? '';

  it('states the units of --retry-schedule, a bare number included', () => {
    expect(option).toContain('each with a unit ms, s, m, h or d (a bare number is seconds)');
  });

  it('names the default once, with its value', () => {
    expect(option.match(/default/g)).toHaveLength(1);
    expect(option).toContain("(default: the delivery engine's, 0ms,5s,5m,30m,2h,5h,10h,14h,20h,24h)");
  });
});
