/**
 * `session-resume-api-server webhooks recover --since <time> --until <time> [--status failed|dead]
 * [--dry-run] [--json]`: lists, or puts back to be delivered now, every event whose last attempt
 * failed in the window (server/webhooks/recover-by-time.ts), with counts. Idempotent.
 */
import { Command, Option } from 'commander';
import type { CommandOutput, RunWithDelivery } from './command-output.js';
import { describeDedupeWindowAge } from '../webhooks/dedupe-window-age.js';
import type { RecoverOptions, RecoverResult } from '../webhooks/recover-by-time.js';
import { UsageError } from '@session-resume-api/runtime/usage-error';

interface RecoverFlags {
  since: Date;
  until: Date;
  status: 'failed' | 'dead';
  dryRun?: boolean;
  json?: boolean;
}

/** Adds `recover` to the `webhooks` group. */
export function addRecover(group: Command, run: RunWithDelivery, io: CommandOutput): void {
  group
    .command('recover')
    .description('deliver again every event whose last attempt failed in a window of time (dead letters, or events waiting for a retry); --dry-run lists them')
    .requiredOption('--since <time>', 'start of the window, ISO 8601 (e.g. 2026-11-28T02:10:00Z), inclusive', time('--since'))
    .requiredOption('--until <time>', 'end of the window, ISO 8601, exclusive', time('--until'))
    .addOption(new Option('--status <status>', 'dead: dead letters; failed: events waiting for a retry').choices(['failed', 'dead']).default('dead'))
    .option('--dry-run', 'list the events, change nothing')
    .addOption(new Option('--json', 'print JSON'))
    .action((flags: RecoverFlags) => {
      if (flags.until.getTime() <= flags.since.getTime()) throw new UsageError('--until must be later than --since.');
      return run(async (delivery) => {
        const window: RecoverOptions = { since: flags.since, until: flags.until, status: flags.status };
        // Before anything is sent: how many of the events receivers may no longer recognise.
        const selection = await delivery.recover({ ...window, dryRun: true });
        const notice = describeDedupeWindowAge(selection.dedupeWindow);
        if (flags.json) io.err(notice);
        else io.out(notice);
        const result = flags.dryRun === true ? selection : await delivery.recover({ ...window, dryRun: false });
        io.out(flags.json ? `${JSON.stringify(result)}\n` : describe(result));
        return result.failed > 0 ? 1 : 0;
      })();
    });
}

function time(flag: string): (value: string) => Date {
  return (value) => {
    const ms = /^\d{4}-\d\d-\d\d(T|$)/.test(value) ? Date.parse(value) : Number.NaN;
    if (!Number.isFinite(ms)) throw new UsageError(`${flag} ${value} is not an ISO 8601 time such as 2026-11-28T02:10:00Z.`);
    return new Date(ms);
  };
}

function describe(result: RecoverResult): string {
  const lines = result.events.map((e) => `${e.failedAt}  ${e.id}  ${e.payload.event} ${e.payload.session.id}${result.dryRun ? '' : outcome(e)}`);
  const verb = result.dryRun ? 'would requeue' : 'requeued';
  const failed = result.failed > 0 ? `; ${result.failed} could not be requeued (each with its error above)` : '';
  return `${[...lines, `${result.matched} ${result.status} event(s) in the window; ${verb} ${result.dryRun ? result.matched : result.requeued}${failed}`].join('\n')}\n`;
}

function outcome(event: RecoverResult['events'][number]): string {
  if (event.error !== undefined) return `  not requeued: ${event.error}`;
  return event.requeued ? '  requeued' : '  already requeued';
}
