/**
 * `session-resume-api-server webhooks …`: the operator's view of the delivery engine on Redis. A key
 * prefix no instance ever used is reported as such (exit 1), never shown as an empty list.
 */
import { Command, Option } from 'commander';
import { parseWholeNumber } from '@session-resume-api/runtime/options-error';
import type { DeadEvent } from '../webhooks/delivery-queue.js';
import { attemptsMadeIn, type DeliveryRecord, type DeliveryState } from '../webhooks/delivery-types.js';
import type { RedisDelivery } from '../webhooks/redis-delivery.js';
import { UsageError } from '@session-resume-api/runtime/usage-error';
import type { CommandOutput, RunWithDelivery } from './command-output.js';
import { dedupeWindowAge, describeDedupeWindowAge } from '../webhooks/dedupe-window-age.js';
import { addEndpoint } from './endpoint-command.js';
import { addRecover } from './recover-command.js';

/** Runs `work` with a read-only Redis delivery engine over the configured Redis; resolves with the exit code. */
export type WithRedisDelivery = (work: (delivery: RedisDelivery, keyPrefix: string) => Promise<number>) => Promise<number>;

/**
 * Builds the `webhooks` command group.
 * @example program.addCommand(createWebhooksCommand(withRedisDelivery, io, (code) => (exitCode = code)));
 */
export function createWebhooksCommand(withRedisDelivery: WithRedisDelivery, io: CommandOutput, setCode: (code: number) => void): Command {
  const group = new Command('webhooks')
    .description('the webhook delivery engine on Redis: events, attempts, dead letters')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  // Every command first checks that the prefix was ever used: a typo must not look like "nothing".
  const run: RunWithDelivery = (work) => async () =>
    setCode(
      await withRedisDelivery(async (delivery, keyPrefix) => {
        if (!(await delivery.everWritten())) {
          io.err(`Nothing was ever written under the key prefix "${keyPrefix}": check REDIS_KEY_PREFIX and REDIS_URL.\n`);
          return 1;
        }
        return work(delivery);
      }),
    );
  for (const add of [addShow, addList, addStats, addDead, addReplay, addRecover, addEndpoint]) add(group, run, io);
  return group;
}

const json = () => new Option('--json', 'print JSON');

function addShow(group: Command, run: RunWithDelivery, io: CommandOutput): void {
  group
    .command('show <webhook-id>')
    .description('one event: its state, target origin and every attempt')
    .addOption(json())
    .action((id: string, options: { json?: boolean }) =>
      run(async (delivery) => {
        const found = await delivery.show(id);
        if (!found) {
          io.err(`No event has the webhook-id ${id} (delivered events are kept for a bounded time): list them with \`webhooks list\`.\n`);
          return 1;
        }
        io.out(options.json ? `${JSON.stringify(found)}\n` : describe(found));
        return 0;
      })(),
    );
}

function addList(group: Command, run: RunWithDelivery, io: CommandOutput): void {
  group
    .command('list')
    .description('events, newest first')
    .addOption(new Option('--state <state>', 'only events in this state').choices(['pending', 'delivering', 'delivered', 'dead']))
    .option('--limit <n>', 'at most this many (default 20)', positiveInteger, 20)
    .addOption(json())
    .action((options: { state?: DeliveryState; limit: number; json?: boolean }) =>
      run(async (delivery) => {
        const records = await delivery.list({ ...(options.state ? { state: options.state } : {}), limit: options.limit });
        if (options.json) io.out(`${JSON.stringify(records)}\n`);
        else for (const record of records) io.out(summary(record));
        return 0;
      })(),
    );
}

function addStats(group: Command, run: RunWithDelivery, io: CommandOutput): void {
  group
    .command('stats')
    .description('how many events are in each state')
    .addOption(json())
    .action((options: { json?: boolean }) =>
      run(async (delivery) => {
        const stats = await delivery.stats();
        io.out(
          options.json
            ? `${JSON.stringify(stats)}\n`
            : `${Object.entries(stats)
                .map(([k, v]) => `${k} ${v}`)
                .join('\n')}\n`,
        );
        return 0;
      })(),
    );
}

function addDead(group: Command, run: RunWithDelivery, io: CommandOutput): void {
  group
    .command('dead')
    .description('the dead-letter list: events that ran out of attempts or got 410, oldest first')
    .addOption(json())
    .action((options: { json?: boolean }) =>
      run(async (delivery) => {
        const dead = await delivery.listDead();
        if (options.json) io.out(`${JSON.stringify(dead)}\n`);
        else for (const event of dead) io.out(deadLine(event));
        return 0;
      })(),
    );
}

function addReplay(group: Command, run: RunWithDelivery, io: CommandOutput): void {
  group
    .command('replay [webhook-id]')
    .description('deliver one dead event again (by webhook-id), or every one with --all; the webhook-id stays')
    .option('--all', 'replay every dead event')
    .addOption(json())
    .action((id: string | undefined, options: { all?: boolean; json?: boolean }) => {
      if (!id && !options.all) throw new UsageError('Give a webhook-id (see `webhooks dead`) or --all.');
      return run(async (delivery) => {
        const noSuchEvent = () => {
          io.err(`No dead event has the webhook-id ${id}: list them with \`session-resume-api-server webhooks dead\`.\n`);
          return 1;
        };
        const selected = (await delivery.listDead()).filter((dead) => options.all || dead.id === id);
        if (selected.length === 0 && !options.all) return noSuchEvent();
        // Before anything is sent: how many of the events receivers may no longer recognise.
        const dedupeWindow = dedupeWindowAge(
          selected.map((dead) => dead.payload),
          Date.now(),
        );
        (options.json ? io.err : io.out)(describeDedupeWindowAge(dedupeWindow));
        const replayed = options.all ? await delivery.replayAll() : Number(await delivery.replay(id as string));
        if (replayed === 0 && !options.all) return noSuchEvent();
        io.out(options.json ? `${JSON.stringify({ replayed, dedupeWindow })}\n` : options.all ? `replayed ${replayed} event(s)\n` : `replayed ${id}\n`);
        return 0;
      })();
    });
}

function positiveInteger(value: string): number {
  const limit = parseWholeNumber(value, { min: 1 });
  if (limit === undefined) throw new UsageError(`--limit ${value} must be a whole number ≥ 1.`);
  return limit;
}

function summary(record: DeliveryRecord): string {
  const last = record.attempts.at(-1);
  const tail = last ? `, last ${last.at} ${last.result}${last.status ? ` ${last.status}` : ''}` : '';
  return `${record.id}  ${record.state}  ${record.event.event} ${record.event.session.id}  ${attemptsMadeIn(record.attempts)} attempt(s)${tail}\n`;
}

function describe(record: DeliveryRecord): string {
  const lines = [
    `id       ${record.id}`,
    `event    ${record.event.event} ${record.event.session.id} ${record.event.timestamp}`,
    `state    ${record.state}`,
    `target   ${record.target}`,
    `attempts ${attemptsMadeIn(record.attempts)}`,
    ...historyLines(record),
  ];
  return `${lines.join('\n')}\n`;
}

/** Each attempt numbered; a `held_overflow` entry, which made no request, is not numbered. */
function historyLines(record: DeliveryRecord): string[] {
  let number = 0;
  return record.attempts.map((a) => {
    if (a.result === 'held_overflow') return `  -  ${a.at}  ${a.result}  ${a.reason ?? ''}`;
    number++;
    return `  ${number}. ${a.at}  ${a.result}${a.status ? ` ${a.status}` : ''}  ${a.durationMs} ms${a.response ? `  ${JSON.stringify(a.response.slice(0, 120))}` : ''}${a.reason ? `  ${a.reason}` : ''}`;
  });
}

function deadLine(event: DeadEvent): string {
  return `${event.failedAt}  ${event.id}  ${event.target}  ${event.payload.event} ${event.payload.session.id}  ${event.attempts} attempt(s)  ${event.reason}\n`;
}
