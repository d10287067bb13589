/**
 * `webhooks endpoint [--json]` shows the endpoint's shared health and held events; `webhooks
 * endpoint enable` closes its circuit, and the held backlog drains earliest due first
 * (x-decisions: endpoint-health).
 */
import { Command, Option } from 'commander';
import type { CommandOutput, RunWithDelivery } from './command-output.js';
import type { EndpointStatus } from '../webhooks/endpoint-circuit.js';

/** Adds `endpoint` and `endpoint enable` to the `webhooks` group. */
export function addEndpoint(group: Command, run: RunWithDelivery, io: CommandOutput): void {
  const endpoint = group
    .command('endpoint')
    .description("the webhook endpoint's health: state (closed, open, disabled), failure streak, next probe")
    .addOption(new Option('--json', 'print JSON'))
    .action((options: { json?: boolean }) =>
      run(async (delivery) => {
        const health = await delivery.endpoint();
        if (!health) {
          io.err('Endpoint health is off for this delivery.\n');
          return 1;
        }
        io.out(options.json ? `${JSON.stringify(healthJson(health))}\n` : describeHealth(health));
        return 0;
      })(),
    );
  endpoint
    .command('enable')
    .description('close the circuit of the endpoint (re-enable it when disabled): held events are delivered again')
    .action(() =>
      run(async (delivery) => {
        const before = await delivery.endpoint();
        const after = await delivery.enableEndpoint();
        if (!after) {
          io.err('Endpoint health is off for this delivery.\n');
          return 1;
        }
        io.out(`endpoint enabled (was ${before?.state ?? 'closed'}); instances resume delivering within a second\n`);
        return 0;
      })(),
    );
}

/** The times of the shared state, kept in ms since the epoch, as the text shows them: ISO 8601. */
const TIMES = ['failingSince', 'nextProbeAt', 'changedAt', 'probeReleasedAt', 'drainAt'] as const;

function healthJson(health: EndpointStatus): Record<string, unknown> {
  const times = TIMES.flatMap((name) => (health[name] === undefined ? [] : [[name, new Date(health[name]).toISOString()]]));
  return { ...health, ...Object.fromEntries(times) };
}

function describeHealth(health: EndpointStatus): string {
  const at = (ms: number | undefined) => (ms === undefined ? '—' : new Date(ms).toISOString());
  const lines = [
    `state       ${health.state}${health.reason && health.state !== 'closed' ? ` (${health.reason})` : ''}`,
    `streak      ${health.streak} consecutive failed attempt(s)`,
    `failing     ${health.failingSince === undefined ? '—' : `since ${at(health.failingSince)}`}`,
    `next probe  ${health.state === 'open' ? at(health.nextProbeAt) : health.state === 'disabled' ? 'none until `webhooks endpoint enable`' : '—'}`,
    `changed     ${at(health.changedAt)}`,
    `held        ${health.held} event(s)${health.drainAt === undefined ? '' : `, draining earliest due first (${health.drainOutstanding ?? 0} released in flight of a window of ${health.drainWindow ?? '?'}, releases from ${at(health.drainAt)})`}`,
  ];
  return `${lines.join('\n')}\n`;
}
